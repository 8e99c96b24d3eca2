//! The status bar: its error count is the Problems list's, whatever
//! else goes wrong at run time (counted apart); its banners — what is muted or soloed, a
//! capture being written, the debugger's pause — come and go without moving what is in
//! the bar or in the panes; and the cache's budget reads in MiB, as it is set.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{open, open_demo, show, temp, type_line, until};
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use hitbench::workbench::dock::Pane;

/// A project of one table whose two lines go wrong: an event mapped to a track nobody
/// defines (a warning) and a track line with a word where its volume goes (an error).
const TABLE: &str = "[EventMapping]\r\nghost_event=kSndobPlay,0x777,0,0,0,0\r\n\
[Track]\r\n0x500=0,a_track,loud,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60\r\n";

/// The number the Problems panel's checkbox `what` ("Errors", "Warnings") shows.
fn problems_panel_count(
    harness: &egui_kittest::Harness<'static, hitbench::workbench::Workbench>,
    what: &str,
) -> usize {
    let label = harness
        .query_all_by_role(Role::CheckBox)
        .filter_map(|n| n.accesskit_node().label())
        .find(|l| l.starts_with(&format!("{what} (")))
        .unwrap_or_else(|| panic!("no `{what}` box"));
    label[what.len() + 2..label.len() - 1].parse().unwrap()
}

#[test]
fn the_error_count_is_the_problems_lists() {
    let dir = temp("status-errors");
    std::fs::write(dir.join("broken.hot"), TABLE).unwrap();
    let config = temp("status-errors-config");
    let mut harness = open(&dir, &config);
    harness.run();
    show(&mut harness, Pane::Problems);
    // Something goes wrong at run time too: an event nobody defines.
    type_line(&mut harness, "ui no_such_event");
    until(&mut harness, "the unknown event is traced", |wb| {
        wb.trace()
            .iter()
            .any(|r| r.kind == engine_core::runtime::TraceKind::Error)
    });
    show(&mut harness, Pane::Problems);
    let errors = problems_panel_count(&harness, "Errors");
    let warnings = problems_panel_count(&harness, "Warnings");
    assert_eq!((errors, warnings), (1, 1));
    harness.get_by_label(&format!(
        "problems: {errors} error(s), {warnings} warning(s)"
    ));
    // The run-time error is counted apart, and opens the traces.
    harness.get_by_label("runtime errors: 1").click();
    harness.run();
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn banners_in_the_status_bar_move_nothing() {
    let (mut harness, config) = open_demo("status-banners");
    harness.run();
    until(&mut harness, "the engine runs", |wb| {
        wb.live().cache.is_some()
    });
    show(&mut harness, Pane::Console);
    type_line(&mut harness, "break piano_play");
    until(&mut harness, "the breakpoint is set", |wb| {
        wb.live().debug.breakpoints.len() == 1
    });
    let places = |h: &egui_kittest::Harness<'static, hitbench::workbench::Workbench>| {
        [
            h.get_by_label_contains("problems: ").rect(),
            h.get_by_label_contains("runtime errors: ").rect(),
            // A tab of the lower panes: they move if the status bar grows.
            h.get_by_label("Problems").rect(),
        ]
    };
    let captures = temp("status-banners-capture");
    let capture = captures.join("banner.hbcap");
    type Raise = Box<dyn Fn(&mut egui_kittest::Harness<'static, hitbench::workbench::Workbench>)>;
    let banners: [(&str, Raise); 3] = [
        (
            "muted: fx",
            Box::new(|h| {
                type_line(h, "mute fx");
                until(h, "fx is muted", |wb| wb.live().monitor.is_active());
            }),
        ),
        (
            "capturing to",
            Box::new(move |h| {
                h.state_mut().start_capture(&capture);
                until(h, "it captures", hitbench::workbench::Workbench::capturing);
            }),
        ),
        (
            "F5 continues",
            Box::new(|h| {
                type_line(h, "sev piano play @1");
                until(h, "the debugger pauses", |wb| {
                    wb.live().debug.paused.is_some()
                });
            }),
        ),
    ];
    for (banner, raise) in banners {
        harness.run();
        let before = places(&harness);
        raise(&mut harness);
        harness.run();
        assert!(
            harness.query_all_by_label_contains(banner).count() >= 1,
            "`{banner}` shows"
        );
        assert_eq!(places(&harness), before, "`{banner}` moved them");
    }
    // The cache's budget reads in MiB, as world.ini and --cache-mb set it.
    harness.get_by_label_contains("/ 256 MiB");
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&captures);
}
