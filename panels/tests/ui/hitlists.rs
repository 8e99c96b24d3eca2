//! The hit-list editor under egui_kittest, on a temporary project whose `.hot` holds
//! patches, hit lists (ranges, a list of lists, a missing sample) and a track list:
//! lists are shown with what they play; add, remove and reorder change the pending edits
//! and the save command carries them; undo and redo; the changed-on-disk warning and its
//! buttons; auditioning; the simulation's counts add up to N.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::command::Command;
use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::hit_lists;
use panels::{AppCommand, ContextData, HitListData, HitListEdit, HitListsPanel, SaveOutcome};
use std::path::PathBuf;

/// A temporary project folder, removed when dropped.
struct TempProject(PathBuf);

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const HOT: &str = "; sounds of the test lot\r\n\
[Patch]\r\n\
100=0,step_a,\"sounds\\step_a.wav\",0,0,0,0,0\r\n\
101=0,step_b,\"sounds\\step_b.wav\",0,0,0,0,0\r\n\
102=0,step_c,\"sounds\\missing.wav\",0,0,0,0,0\r\n\
103=0,step_d,\"sounds\\step_d.wav\",0,0,0,0,0\r\n\
\r\n\
[Track]\r\n\
0x500=0,0,1024,0,0,1,20,@92,0\r\n\
\r\n\
[GlobalHitList]\r\n\
; footsteps\r\n\
92 = 100, 101, 0x66 ; the walk\r\n\
93=100-102\r\n\
94=92,93,103\r\n";

fn project(tag: &str) -> (TempProject, Project) {
    let dir = std::env::temp_dir().join(format!(
        "hitbench-panel-hitlists-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sounds")).unwrap();
    for name in ["step_a", "step_b", "step_d"] {
        std::fs::write(dir.join(format!("sounds/{name}.wav")), b"RIFF").unwrap();
    }
    std::fs::write(dir.join("lot.hot"), HOT).unwrap();
    let project = Project::load(&dir);
    (TempProject(dir), project)
}

use crate::common;
type State = common::State<HitListsPanel>;

pub(crate) fn harness(tag: &str) -> Harness<'static, State> {
    harness_sized(tag, egui::vec2(1000.0, 720.0))
}

fn harness_sized(tag: &str, size: egui::Vec2) -> Harness<'static, State> {
    let (dir, project) = project(tag);
    let data = HitListData {
        views: hit_lists(&project),
        ..HitListData::default()
    };
    let cx = ContextData {
        project,
        hitlists: data,
        ..ContextData::default()
    };
    let mut harness = common::harness(HitListsPanel::default(), cx, size);
    harness.state_mut().keep = Some(Box::new(dir));
    harness.run();
    harness
}

fn hot(state: &State) -> PathBuf {
    state.cx.project.root().join("lot.hot")
}

/// The entries of list 92 the panel would save now.
fn pending_92(harness: &Harness<'_, State>) -> Option<Vec<String>> {
    harness
        .state()
        .panel
        .pending()
        .into_iter()
        .find(|e| e.key == "92")
        .map(|e| e.entries)
}

/// In a tab as narrow as the default layout gives it, what each entry plays is stacked
/// under the entry, where it shows without scrolling sideways; so are its buttons.
#[test]
fn a_narrow_tab_shows_what_each_entry_plays_beneath_it() {
    let width = 560.0;
    let narrow = harness_sized("narrow", egui::vec2(width, 720.0));
    let entry = narrow.get_by_label("100").rect();
    let plays = narrow
        .get_by_label_contains("patch 100 step_a — sounds/step_a.wav")
        .rect();
    assert!(plays.top() >= entry.bottom(), "{entry:?} {plays:?}");
    assert!(plays.left() < width - 100.0, "{plays:?}");
    for button in narrow.query_all_by_label("Remove") {
        assert!(button.rect().right() <= width, "{:?}", button.rect());
    }
    // Wide, one row each: what it plays beside the entry.
    let wide = harness("wide");
    let entry = wide.get_by_label("100").rect();
    let plays = wide
        .get_by_label_contains("patch 100 step_a — sounds/step_a.wav")
        .rect();
    assert!(plays.left() > entry.right(), "{entry:?} {plays:?}");
    assert!(plays.top() < entry.bottom(), "{entry:?} {plays:?}");
}

#[test]
fn lists_show_their_entries_and_what_they_play() {
    let mut harness = harness("show");
    // Global lists, then the track's own list.
    harness.get_by_label("92 · 3 entries");
    // A range counts each of its IDs, as the Browser does (U8).
    harness.get_by_label_contains("93 · 3 entries");
    harness.get_by_label_contains("track 0x500");
    // List 92 is shown: each entry resolved to its patch and sample.
    harness.get_by_label("Hit list 92");
    harness.get_by_label_contains("patch 100 step_a — sounds/step_a.wav");
    harness.get_by_label_contains("patch 102 step_c");
    harness.get_by_label_contains("(sample file missing)");
    harness.get_by_label_contains("the own list of track(s) 0x500");
    // A list of lists.
    harness.get_by_label("94 · 3 entries").click();
    harness.run();
    harness.get_by_label("Hit list 94");
    harness.get_by_label_contains("hit list 92 (3 entries)");
    // A range stands for each of its IDs.
    harness.get_by_label_contains("93 · 3 entries").click();
    harness.run();
    harness.get_by_label("100-102");
    assert_eq!(harness.query_all_by_label_contains("patch 10").count(), 3);
}

#[test]
fn add_remove_reorder_then_save_emits_the_entries() {
    let mut harness = harness("edit");
    let file = hot(harness.state());

    // Add an entry: the file is opened for editing once, the edit is pending.
    harness.get_by_label("New entry").click();
    harness.run();
    harness.get_by_label("New entry").type_text("103");
    harness.run();
    harness.get_by_label("Add").click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["100", "101", "0x66", "103"]);
    assert_eq!(
        harness.state().commands,
        [AppCommand::EditHitLists(file.clone())]
    );
    harness.get_by_label("92 · 4 entries (edited)");

    // Move the new entry up, remove the first.
    harness.get_all_by_label("Up").nth(3).unwrap().click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["100", "101", "103", "0x66"]);
    harness.get_all_by_label("Remove").next().unwrap().click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "103", "0x66"]);

    // A typo is refused with the reason.
    harness.get_by_label("New entry").click();
    harness.run();
    harness.get_by_label("New entry").type_text("9-3");
    harness.run();
    harness.get_by_label("Add").click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "103", "0x66"]);
    assert!(harness.state().panel.entry_error.is_some());

    harness.get_by_label("Save 1 list(s)").click();
    harness.run();
    assert_eq!(
        harness.state().commands.last().unwrap(),
        &AppCommand::SaveHitLists {
            edits: vec![HitListEdit {
                file,
                key: "92".into(),
                entries: vec!["101".into(), "103".into(), "0x66".into()],
            }],
            force: false,
        }
    );
    // Only one EditHitLists for the file.
    let opens = harness
        .state()
        .commands
        .iter()
        .filter(|c| matches!(c, AppCommand::EditHitLists(_)))
        .count();
    assert_eq!(opens, 1);

    // The app reports the save: the edits are done with.
    harness.state_mut().cx.hitlists.saves = 1;
    harness.state_mut().cx.hitlists.outcome = Some(SaveOutcome::Saved {
        files: vec![hot(harness.state())],
        lines: 1,
    });
    harness.run();
    assert!(harness.state().panel.pending().is_empty());
    harness.get_by_label_contains("1 line(s) changed");
}

#[test]
fn undo_and_redo_with_buttons_and_keys() {
    let mut harness = harness("undo");
    harness.get_all_by_label("Remove").next().unwrap().click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "0x66"]);
    harness.get_all_by_label("Remove").next().unwrap().click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["0x66"]);

    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "0x66"]);
    harness.get_by_label("Undo").click();
    harness.run();
    // Back to the list as written: nothing pending.
    assert_eq!(pending_92(&harness), None);
    harness.get_by_label("Redo").click();
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "0x66"]);

    // Ctrl+Z and Ctrl+Shift+Z while the pointer is over the panel.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(pending_92(&harness), None);
    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    harness.run();
    assert_eq!(pending_92(&harness).unwrap(), ["101", "0x66"]);
}

#[test]
fn a_file_changed_on_disk_warns_with_save_anyway_and_reload() {
    let mut harness = harness("conflict");
    let file = hot(harness.state());
    harness.get_all_by_label("Remove").next().unwrap().click();
    harness.run();
    harness.get_by_label("Save 1 list(s)").click();
    harness.run();
    harness.state_mut().cx.hitlists.saves = 1;
    harness.state_mut().cx.hitlists.outcome = Some(SaveOutcome::ChangedOnDisk {
        file: file.clone(),
        detail: "512 bytes when opened, 530 now; first difference on line 14".into(),
    });
    harness.run();
    // The edits are kept, the warning says what happened.
    assert_eq!(pending_92(&harness).unwrap(), ["101", "0x66"]);
    harness.get_by_label_contains("lot.hot changed on disk since it was opened");
    harness.get_by_label_contains("first difference on line 14");

    harness.get_by_label("Save anyway").click();
    harness.run();
    assert!(matches!(
        harness.state().commands.last(),
        Some(AppCommand::SaveHitLists { force: true, edits }) if edits.len() == 1
    ));
    harness.get_by_label("Reload").click();
    harness.run();
    assert_eq!(
        harness.state().commands.last(),
        Some(&AppCommand::ReloadHitLists)
    );
    assert!(harness.state().panel.pending().is_empty());
}

#[test]
fn an_entry_can_be_auditioned() {
    let mut harness = harness("audition");
    harness.get_all_by_label("Play").next().unwrap().click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::Run(Command::Play("100".into()))]
    );
}

#[test]
fn the_simulation_counts_add_up_to_n() {
    let mut harness = harness("simulate");
    // An edit first, so the picture shows one pending.
    harness.get_by_label("New entry").click();
    harness.run();
    harness.get_by_label("New entry").type_text("103");
    harness.run();
    harness.get_by_label("Add").click();
    harness.run();
    harness.get_by_label("Picks").click();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("Picks").type_text("600");
    harness.run();
    harness.get_by_label("Simulate").click();
    harness.run();
    let (_, ids, stats) = harness.state().panel.simulation.clone().unwrap();
    assert_eq!(ids, [100, 101, 102, 103]);
    assert_eq!(stats.picks, 600);
    assert_eq!(stats.entries.iter().map(|e| e.count).sum::<usize>(), 600);
    harness.get_by_label_contains("600 picks, seed 1: back-to-back repeats 0");
    // Each row's count is in the table.
    for row in &stats.entries {
        let count = row.count.to_string();
        assert!(harness.query_all_by_label(&count).count() >= 1, "{count}");
    }

    harness.set_size(egui::vec2(1000.0, 820.0));
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.snapshot("hitlists");
}

/// The details pane's scroll bars have their own room — they never
/// cover its last controls, Simulate among them — in a pane small enough to scroll both
/// ways, scrolled to Simulate.
#[test]
fn the_details_scroll_bars_never_cover_simulate() {
    let size = egui::vec2(420.0, 260.0);
    let mut harness = harness_sized("scrollbar", size);
    harness.get_by_label("Simulate").scroll_to_me();
    harness.run();
    harness.run();
    let simulate = harness.get_by_label("Simulate").rect();
    // Under the pointer a bar is as wide as egui's bars get (a floating one grows to
    // `bar_width`), at the pane's bottom and right edges.
    let bar = egui::style::ScrollStyle::floating().bar_width;
    assert!(
        simulate.bottom() + bar <= size.y && simulate.right() + bar <= size.x,
        "Simulate at {simulate:?} is under a scroll bar of a {size:?} pane"
    );
}
