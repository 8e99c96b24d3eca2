//! Banners do not move the controls under the pointer: every line a
//! panel shows only at times — what is muted or soloed, a filter's complaint, the
//! cache's thrashing warning, the hit lists' pending edits and a file changed on disk,
//! the Why panel's note that the sample trace is off, the registers a step changed —
//! has its place kept while it is not shown, so the controls after it stay where they
//! were when it appears. (The workbench's own banners, in the status bar and for an
//! open capture, are tested in the app's tests.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::runtime::TraceSwitches;
use engine_core::sound::server::MonitorTarget;
use panels::{SaveOutcome, WhyTarget};

use crate::common::State;

/// Where a control was, and where it is once the banner is up.
type Places = (egui::Rect, egui::Rect);

/// A banner's case: its name, and what it measures.
type Case = (&'static str, fn() -> Places);

/// Where `control` is, then where it is once `raise` has put up its banner, which
/// then says `banner`.
fn before_and_after<P: panels::Panel>(
    harness: &mut Harness<'static, State<P>>,
    banner: &str,
    control: impl Fn(&Harness<'static, State<P>>) -> egui::Rect,
    raise: impl FnOnce(&mut Harness<'static, State<P>>),
) -> Places {
    harness.run();
    assert!(
        harness.query_all_by_label_contains(banner).next().is_none(),
        "`{banner}` is up before"
    );
    let before = control(harness);
    raise(harness);
    harness.run();
    harness.run();
    assert!(
        harness.query_all_by_label_contains(banner).next().is_some(),
        "`{banner}` did not come up"
    );
    (before, control(harness))
}

fn mixer_muted() -> Places {
    let mut harness = crate::mixer::harness();
    before_and_after(
        &mut harness,
        "muted: fx",
        |h| h.get_by_role_and_label(Role::Button, "Mute fx").rect(),
        |h| {
            let monitor = &mut h.state_mut().cx.live.monitor;
            monitor
                .muted
                .insert(MonitorTarget::Group(engine_core::runtime::ControlGroup::Fx));
        },
    )
}

fn traces_object_not_an_id() -> Places {
    let mut harness = crate::traces::harness();
    before_and_after(
        &mut harness,
        "?",
        |h| h.get_by_role_and_label(Role::TextInput, "Track:").rect(),
        |h| {
            h.get_by_label("Object:").click();
            h.run();
            h.get_by_label("Object:").type_text("x");
        },
    )
}

fn browser_searching() -> Places {
    let mut harness = crate::browser::harness();
    before_and_after(
        &mut harness,
        "Events (1 of",
        |h| h.get_by_label("Collapse all").rect(),
        |h| {
            h.get_by_role_and_label(Role::TextInput, "Search").click();
            h.run();
            h.get_by_role_and_label(Role::TextInput, "Search")
                .type_text("greet");
        },
    )
}

fn cache_thrashing() -> Places {
    let mut harness = crate::cache::harness(false);
    before_and_after(
        &mut harness,
        "Warning: thrashing",
        |h| h.get_by_label("Start preload").rect(),
        |h| h.state_mut().cx.live.cache = Some(crate::cache::stats(60, 100, true)),
    )
}

fn hitlists_pending_edits() -> Places {
    let mut harness = crate::hitlists::harness("banner-pending");
    before_and_after(
        &mut harness,
        "Pending changes (1)",
        |h| h.get_by_label("Global lists").rect(),
        |h| h.get_all_by_label("Remove").next().unwrap().click(),
    )
}

fn hitlists_changed_on_disk() -> Places {
    let mut harness = crate::hitlists::harness("banner-disk");
    harness.get_all_by_label("Remove").next().unwrap().click();
    before_and_after(
        &mut harness,
        "changed on disk",
        |h| h.get_by_label("Global lists").rect(),
        |h| {
            let file = h.state().cx.project.root().join("lot.hot");
            let data = &mut h.state_mut().cx.hitlists;
            data.saves = 1;
            data.outcome = Some(SaveOutcome::ChangedOnDisk {
                file,
                detail: "it is 12 bytes longer".into(),
            });
        },
    )
}

fn why_sample_trace_off() -> Places {
    let mut harness = crate::why::harness_on(WhyTarget::Event("vox_greet".into()));
    before_and_after(
        &mut harness,
        "The sample trace is off",
        |h| h.get_by_label("started").rect(),
        |h| h.state_mut().cx.live.trace_switches = TraceSwitches::default(),
    )
}

fn threads_step_marks() -> Places {
    let mut harness = crate::threads::harness(None);
    harness.run();
    harness.get_by_label("#3").click();
    before_and_after(
        &mut harness,
        "v1, changed by the last step",
        |h| h.get_by_label("arg0").rect(),
        |h| {
            let th = &mut h.state_mut().cx.live.threads[1];
            th.pc = Some(0x44);
            th.registers.iter_mut().find(|(n, _)| n == "v1").unwrap().1 = 6;
        },
    )
}

#[test]
fn a_banner_appearing_moves_no_control() {
    let cases: [Case; 8] = [
        ("mute/solo (Mixer)", mixer_muted),
        ("object filter not an id (Traces)", traces_object_not_an_id),
        ("search typed (Browser)", browser_searching),
        ("thrashing (Resource cache)", cache_thrashing),
        ("pending edits (Hit lists)", hitlists_pending_edits),
        ("changed on disk (Hit lists)", hitlists_changed_on_disk),
        ("sample trace off (Why)", why_sample_trace_off),
        (
            "registers a step changed (Track threads)",
            threads_step_marks,
        ),
    ];
    let mut moved = Vec::new();
    for (banner, case) in cases {
        let (before, after) = case();
        if before != after {
            moved.push(format!("{banner}: {before:?} → {after:?}"));
        }
    }
    assert!(moved.is_empty(), "controls moved:\n{}", moved.join("\n"));
}
