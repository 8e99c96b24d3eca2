//! Hit-list editing: the views of a project's hit lists (entries resolved to
//! samples, lists of lists, per-track lists, a source's `LIST` lines), the pick
//! simulation, and the editing session on a `.hot` with comments, blank lines, CRLF and
//! unknown sections — a save changes only the edited list's line, an external change is
//! caught before saving, undo and redo.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::toolchain::formats::hitlist::HitEntry;
use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::{
    DefinitionKind, DiskStatus, EditError, HitListEditor, ListOwner, Plays, SaveError, hit_lists,
    parse_entry_text, simulate,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A temporary data directory, removed when dropped.
struct TempProject(PathBuf);

impl TempProject {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-hitlists-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sounds")).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        std::fs::write(self.path(name), bytes).unwrap();
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap()
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A short silent mono WAV.
fn wav() -> Vec<u8> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = Vec::new();
    {
        let mut writer = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).unwrap();
        for _ in 0..64 {
            writer.write_sample(0i16).unwrap();
        }
        writer.finalize().unwrap();
    }
    bytes
}

/// The `.hot` of the test project, with CRLF endings: comments, blank lines, an unknown
/// section, spacing and a trailing comment, several hit lists (one of lists, one
/// written twice, one used by a track).
const HOT_LINES: &[&str] = &[
    "; sounds of the test lot",
    "[Options]",
    "Version=1",
    "",
    "[SomethingNew]",
    "frobnicate = yes ; nobody reads this",
    "",
    "[Patch]",
    "100=0,step_a,\"sounds\\step_a.wav\",0,0,0,0,0",
    "101=0,step_b,\"sounds\\step_b.wav\",0,0,0,0,0",
    "102=0,step_c,\"sounds\\missing.wav\",0,0,0,0,0",
    "103=0,step_d,\"sounds\\step_d.wav\",0,0,0,0,0",
    "",
    "[Track]",
    "; TrackID=0,Subroutine,Volume,Arguments,DuckingPriority,ControlGroup,SPL,@HitList,Patch",
    "0x500=0,0,1024,0,0,1,20,@92,0",
    "0x501=0,0,1024,0,0,1,20,@777,0",
    "",
    "[GlobalHitList]",
    "; footsteps",
    "92 = 100, 101, 0x66 ; the walk",
    "93=100-102",
    "",
    "94=92,93,103",
    "95=100",
    "95=101",
    "",
    "; end",
];

fn hot_text() -> String {
    let mut text = HOT_LINES.join("\r\n");
    text.push_str("\r\n");
    text
}

/// A source whose only content is table lines; one hit list lives in a `LIST` line.
const SOURCE: &str = "; voices\nLAYOUT ts1\n\nLIST [Patch] 200=0,vox_a,\"sounds\\step_a.wav\",0,0,0,0,0\nLIST [Patch] 201=0,vox_b,\"sounds\\step_b.wav\",0,0,0,0,0\n   list [GlobalHitList] 300=200,201   ; the voice list\n";

fn project() -> TempProject {
    let p = TempProject::new("project");
    p.write("sounds/step_a.wav", wav());
    p.write("sounds/step_b.wav", wav());
    p.write("sounds/step_d.wav", wav());
    p.write("lot.hot", hot_text());
    p.write("voices.src", SOURCE);
    p
}

/// The lines of `bytes` split at `\n`, endings kept.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// Asserts that `after` differs from `before` only on the 1-based lines `changed`.
fn only_lines_changed(before: &[u8], after: &[u8], changed: &[usize]) {
    let (before, after) = (lines(before), lines(after));
    assert_eq!(before.len(), after.len(), "line count changed");
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let number = i + 1;
        if changed.contains(&number) {
            assert_ne!(b, a, "line {number} should have changed");
            assert!(a.ends_with(b"\r\n"), "line {number} lost its CRLF");
        } else {
            assert_eq!(
                b,
                a,
                "line {number} changed: {:?} -> {:?}",
                String::from_utf8_lossy(b),
                String::from_utf8_lossy(a)
            );
        }
    }
}

fn line_of(bytes: &[u8], number: usize) -> String {
    String::from_utf8_lossy(lines(bytes)[number - 1]).into_owned()
}

// ---------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------

#[test]
fn views_resolve_entries_to_samples_and_lists() {
    let p = project();
    let project = Project::load(&p.0);
    let views = hit_lists(&project);

    let global = |id: u32| {
        views
            .iter()
            .find(|v| v.id == id && v.owner == ListOwner::Global)
            .unwrap_or_else(|| panic!("no global list {id}: {views:#?}"))
    };

    // 92: as written, spelling kept, each entry resolved to its sample.
    let l92 = global(92);
    assert_eq!(l92.key, "92");
    assert_eq!(l92.text, "100, 101, 0x66");
    assert_eq!(l92.expanded, vec![100, 101, 102]);
    let texts: Vec<&str> = l92.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["100", "101", "0x66"]);
    match &l92.entries[0].targets[0].plays {
        Plays::Patch(s) => {
            assert_eq!((s.patch, s.name.as_str()), (100, "step_a"));
            assert!(s.exists, "{s:?}");
            assert!(s.file.as_ref().unwrap().ends_with("step_a.wav"));
        }
        other => panic!("{other:?}"),
    }
    match &l92.entries[2].targets[0].plays {
        Plays::Patch(s) => {
            assert_eq!(s.patch, 102);
            assert!(!s.exists && s.file.is_none(), "{s:?}");
            assert_eq!(s.path_text, "sounds\\missing.wav");
        }
        other => panic!("{other:?}"),
    }
    let def = l92.definition.as_ref().unwrap();
    assert_eq!((def.line, def.kind), (21, DefinitionKind::HotFile));
    assert!(def.file.ends_with("lot.hot"));
    assert!(l92.is_editable(), "{def:?}");
    assert_eq!(l92.used_by.len(), 1);
    assert_eq!(l92.used_by[0].id, 0x500);

    // 93: a range is one entry standing for three IDs.
    let l93 = global(93);
    assert_eq!(l93.entries.len(), 1);
    assert_eq!(
        l93.entries[0].entry,
        HitEntry::Range {
            first: 100,
            last: 102
        }
    );
    let ids: Vec<u32> = l93.entries[0].targets.iter().map(|t| t.id).collect();
    assert_eq!(ids, [100, 101, 102]);

    // 94: a list of lists.
    let l94 = global(94);
    assert_eq!(
        l94.entries[0].targets[0].plays,
        Plays::List { id: 92, len: 3 }
    );
    assert_eq!(
        l94.entries[1].targets[0].plays,
        Plays::List { id: 93, len: 3 }
    );
    assert!(matches!(l94.entries[2].targets[0].plays, Plays::Patch(_)));

    // 95 is written twice; the later line wins and is the one edited.
    let l95 = global(95);
    assert_eq!(l95.definition.as_ref().unwrap().line, 26);
    assert_eq!(l95.expanded, vec![101]);
    assert!(l95.is_editable());

    // Per-track lists: the track's own list shows list 92; an undefined one says so.
    let track = views
        .iter()
        .find(|v| matches!(&v.owner, ListOwner::Track(t) if t.id == 0x500))
        .unwrap();
    assert_eq!((track.id, track.text.as_str()), (92, "100, 101, 0x66"));
    assert!(track.is_editable());
    let broken = views
        .iter()
        .find(|v| matches!(&v.owner, ListOwner::Track(t) if t.id == 0x501))
        .unwrap();
    assert_eq!(broken.id, 777);
    assert!(broken.definition.is_none() && !broken.is_editable());
    assert!(broken.problems[0].contains("777"), "{:?}", broken.problems);
}

#[test]
fn source_list_lines_are_editable_one_line_at_a_time() {
    let p = project();
    let project = Project::load(&p.0);
    let views = hit_lists(&project);
    let l300 = views.iter().find(|v| v.id == 300).unwrap();
    let def = l300.definition.as_ref().unwrap();
    assert_eq!(def.kind, DefinitionKind::SourceList);
    assert!(def.file.ends_with("voices.src"));
    assert_eq!(def.line, 6);
    assert!(l300.is_editable(), "{def:?}");
    assert_eq!(l300.text, "200,201");
    assert!(matches!(&l300.entries[1].targets[0].plays, Plays::Patch(s) if s.name == "vox_b"));

    let before = p.read("voices.src");
    let mut editor = HitListEditor::open(&def.file).unwrap();
    assert_eq!(editor.kind(), DefinitionKind::SourceList);
    editor.add_entry(&l300.key, HitEntry::Id(200)).unwrap();
    editor.move_entry(&l300.key, 2, 0).unwrap();
    let report = editor.save().unwrap();
    assert_eq!(report.changed.len(), 1);
    assert_eq!(report.changed[0].line, 6);
    let after = p.read("voices.src");
    assert_eq!(
        String::from_utf8_lossy(&after),
        SOURCE.replace("300=200,201   ;", "300=200,200,201   ;"),
        "only the list's value changes; case, indentation and comment stay"
    );
    let (before, after) = (lines(&before), lines(&after));
    assert_eq!(before.len(), after.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        assert_eq!(b == a, i + 1 != 6, "line {}", i + 1);
    }

    // The project loads the edited list.
    let reloaded = Project::load(&p.0);
    assert_eq!(reloaded.hit_lists[&300].entries, vec![200, 200, 201]);
    assert!(!reloaded.has_errors(), "{:?}", reloaded.diagnostics);
}

#[test]
fn a_list_the_file_no_longer_holds_is_read_only_with_a_reason() {
    let p = project();
    let project = Project::load(&p.0);
    // The file changes after loading: list 93's line now holds a comment.
    let text = hot_text().replace("93=100-102", "; 93 moved away");
    p.write("lot.hot", text);
    let views = hit_lists(&project);
    let l93 = views.iter().find(|v| v.id == 93).unwrap();
    let def = l93.definition.as_ref().unwrap();
    let reason = def.read_only.as_deref().unwrap();
    assert!(reason.contains("lot.hot:22"), "{reason}");
    assert!(reason.contains("reload"), "{reason}");
    // The loaded IDs are still shown.
    assert_eq!(l93.expanded, vec![100, 101, 102]);
    assert_eq!(l93.entries.len(), 3);
}

// ---------------------------------------------------------------------------------------
// Editing a .hot
// ---------------------------------------------------------------------------------------

#[test]
fn edits_change_only_the_lists_line() {
    let p = project();
    let path = p.path("lot.hot");
    let original = p.read("lot.hot");
    let mut editor = HitListEditor::open(&path).unwrap();
    assert_eq!(editor.kind(), DefinitionKind::HotFile);
    assert_eq!(editor.to_bytes(), original, "open must not change a byte");
    let keys: Vec<String> = editor.lists().into_iter().map(|l| l.key).collect();
    assert_eq!(keys, ["92", "93", "94", "95"]);

    editor.add_entry("92", HitEntry::Id(103)).unwrap();
    editor.remove_entry("92", 1).unwrap();
    editor.move_entry("92", 2, 0).unwrap();
    let list = editor.list("92").unwrap();
    assert_eq!(
        list.entries,
        vec![HitEntry::Id(103), HitEntry::Id(100), HitEntry::Id(0x66)]
    );
    assert_eq!(list.text, "103, 100, 0x66", "spelling and spacing kept");

    let pending = editor.pending_changes();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].line, 21);
    assert_eq!(pending[0].before, "92 = 100, 101, 0x66 ; the walk");
    assert_eq!(pending[0].after, "92 = 103, 100, 0x66 ; the walk");
    // Nothing is written before save.
    assert_eq!(p.read("lot.hot"), original);

    let report = editor.save().unwrap();
    assert!(report.written);
    assert_eq!(report.changed, pending);
    let saved = p.read("lot.hot");
    only_lines_changed(&original, &saved, &[21]);
    assert_eq!(line_of(&saved, 21), "92 = 103, 100, 0x66 ; the walk\r\n");
    assert!(editor.pending_changes().is_empty());
    assert!(!editor.is_modified());

    // Saving again with nothing to save writes nothing.
    let again = editor.save().unwrap();
    assert!(!again.written && again.changed.is_empty());

    // The project reads the new list; everything else is as before.
    let project = Project::load(&p.0);
    assert_eq!(project.hit_lists[&92].entries, vec![103, 100, 102]);
}

#[test]
fn set_entries_and_the_later_of_two_lines() {
    let p = project();
    let original = p.read("lot.hot");
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    // Key 95 is written on lines 25 and 26; the effective (later) one is edited.
    editor
        .set_entries(
            "95",
            &[
                parse_entry_text("100-101").unwrap(),
                parse_entry_text("92").unwrap(),
            ],
        )
        .unwrap();
    editor.save().unwrap();
    let saved = p.read("lot.hot");
    only_lines_changed(&original, &saved, &[26]);
    assert_eq!(line_of(&saved, 26), "95=100-101,92\r\n");
}

#[test]
fn bad_edits_are_refused_and_change_nothing() {
    let p = project();
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    assert!(matches!(
        editor.remove_entry("92", 3),
        Err(EditError::NoSuchEntry {
            index: 3,
            len: 3,
            ..
        })
    ));
    assert!(matches!(
        editor.add_entry("nope", HitEntry::Id(1)),
        Err(EditError::UnknownList { .. })
    ));
    let backwards = HitEntry::Range { first: 9, last: 5 };
    let err = editor.add_entry("93", backwards).unwrap_err();
    assert!(
        matches!(err, EditError::NotRepresentable { line: 22, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("lot.hot:22"), "{err}");
    let bad_name = HitEntry::Name("two words".into());
    assert!(editor.add_entry("93", bad_name).is_err());
    assert!(!editor.is_modified() && !editor.can_undo());
    assert!(parse_entry_text("1,2").is_err());
    assert!(parse_entry_text("x y").is_err());
    assert_eq!(parse_entry_text(" 0x10 ").unwrap(), HitEntry::Id(16));
}

#[test]
fn a_list_with_unreadable_entries_can_only_be_replaced() {
    let p = project();
    p.write("lot.hot", hot_text().replace("93=100-102", "93=100,$x,101"));
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    let list = editor.list("93").unwrap();
    assert!(list.has_errors());
    assert_eq!(list.entries, vec![HitEntry::Id(100), HitEntry::Id(101)]);
    assert!(matches!(
        editor.remove_entry("93", 0),
        Err(EditError::ListHasErrors { .. })
    ));
    editor.set_entries("93", &[HitEntry::Id(101)]).unwrap();
    assert_eq!(editor.list("93").unwrap().text, "101");
}

#[test]
fn undo_and_redo() {
    let p = project();
    let original = p.read("lot.hot");
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    assert!(!editor.undo() && !editor.redo());
    editor.add_entry("93", HitEntry::Id(103)).unwrap();
    editor.remove_entry("94", 0).unwrap();
    assert_eq!(editor.pending_changes().len(), 2);

    assert!(editor.undo());
    assert_eq!(editor.list("94").unwrap().text, "92,93,103");
    assert_eq!(editor.list("93").unwrap().text, "100-102,103");
    assert!(editor.undo());
    assert_eq!(editor.to_bytes(), original);
    assert!(!editor.is_modified() && !editor.can_undo() && editor.can_redo());

    assert!(editor.redo());
    assert_eq!(editor.list("93").unwrap().text, "100-102,103");
    // A new edit drops the redo history.
    editor.move_entry("92", 0, 2).unwrap();
    assert!(!editor.can_redo());
    assert!(!editor.redo());

    editor.save().unwrap();
    only_lines_changed(&original, &p.read("lot.hot"), &[21, 22]);
    // Undo after saving: a pending change against the saved file.
    assert!(editor.undo());
    let pending = editor.pending_changes();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].line, 21);
    assert_eq!(pending[0].after, "92 = 100, 101, 0x66 ; the walk");
}

#[test]
fn an_external_change_is_caught_before_saving() {
    let p = project();
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    assert_eq!(editor.disk_status(), DiskStatus::Unchanged);
    editor.add_entry("92", HitEntry::Id(103)).unwrap();

    // Someone else edits another line meanwhile.
    let theirs = hot_text().replace("Version=1", "Version=1\r\nLoadPriority=2");
    p.write("lot.hot", &theirs);
    assert!(matches!(editor.disk_status(), DiskStatus::Changed { .. }));
    match editor.save() {
        Err(SaveError::ChangedOnDisk {
            path,
            detail,
            opened_hash,
            disk_hash,
        }) => {
            assert_eq!(path, p.path("lot.hot"));
            assert!(detail.contains("line 4"), "{detail}");
            assert_ne!(Some(opened_hash), disk_hash);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(p.read("lot.hot"), theirs.as_bytes(), "file untouched");
    assert!(editor.is_modified(), "edits kept");

    // The user chose to overwrite.
    let report = editor.save_anyway().unwrap();
    assert!(report.written);
    let saved = p.read("lot.hot");
    only_lines_changed(hot_text().as_bytes(), &saved, &[21]);
    assert_eq!(editor.disk_status(), DiskStatus::Unchanged);

    // A deleted file is a change on disk too.
    editor.add_entry("92", HitEntry::Id(100)).unwrap();
    std::fs::remove_file(p.path("lot.hot")).unwrap();
    assert_eq!(editor.disk_status(), DiskStatus::Missing);
    assert!(matches!(
        editor.save(),
        Err(SaveError::ChangedOnDisk { .. })
    ));
    assert!(!p.path("lot.hot").exists());
}

#[test]
fn rewriting_the_same_bytes_is_not_a_conflict() {
    let p = project();
    let mut editor = HitListEditor::open(p.path("lot.hot")).unwrap();
    editor.remove_entry("94", 2).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    p.write("lot.hot", hot_text());
    assert!(matches!(
        editor.disk_status(),
        DiskStatus::Unchanged | DiskStatus::Touched
    ));
    editor.save().unwrap();
    only_lines_changed(hot_text().as_bytes(), &p.read("lot.hot"), &[24]);
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&p.0)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn open_names_the_file_it_cannot_read() {
    let err = HitListEditor::open(Path::new("/nonexistent/hitbench/x.hot")).unwrap_err();
    assert!(matches!(err, EditError::Read { .. }));
    assert!(err.to_string().contains("x.hot"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Simulation
// ---------------------------------------------------------------------------------------

#[test]
fn simulation_follows_the_engines_rule() {
    let entries = [100, 101, 102, 103];
    let stats = simulate(&entries, 10_000, 7);
    assert_eq!(stats.picks, 10_000);
    assert_eq!(stats.seed, 7);
    assert_eq!(stats.entries.iter().map(|e| e.count).sum::<usize>(), 10_000);
    assert_eq!(stats.back_to_back, 0, "never twice in a row");
    assert_eq!(stats.min_gap, Some(2));
    for e in &stats.entries {
        assert!((0.22..0.28).contains(&e.share), "{e:?}");
        assert!(e.min_gap.unwrap() >= 2);
        // Each of four entries comes back every 4 picks on average.
        let mean = e.mean_gap.unwrap();
        assert!((3.6..4.4).contains(&mean), "{e:?}");
        assert!(e.longest_absence > 3);
    }
    assert_eq!(stats.preview.len(), 32);
    assert!(stats.preview.windows(2).all(|w| w[0] != w[1]));

    // Deterministic per seed; another seed gives another run.
    assert_eq!(simulate(&entries, 10_000, 7), stats);
    assert_ne!(simulate(&entries, 10_000, 8).preview, stats.preview);
}

#[test]
fn simulation_edge_cases() {
    let empty = simulate(&[], 100, 1);
    assert_eq!((empty.picks, empty.entries.len()), (0, 0));

    // One entry: repeating is the only choice.
    let one = simulate(&[5], 10, 1);
    assert_eq!(one.entries[0].count, 10);
    assert_eq!(one.back_to_back, 9);
    assert_eq!(one.entries[0].min_gap, Some(1));
    assert_eq!(one.entries[0].longest_absence, 0);

    // Two entries alternate.
    let two = simulate(&[1, 2], 10, 3);
    assert_eq!(two.back_to_back, 0);
    assert!(
        two.entries
            .iter()
            .all(|e| e.count == 5 && e.min_gap == Some(2))
    );

    // An ID written twice is one row with two positions; an entry never picked has the
    // whole run as its absence.
    let dup = simulate(&[7, 7, 8], 50, 2);
    assert_eq!(dup.entries.len(), 2);
    assert_eq!(dup.entries[0].positions, vec![0, 1]);
    assert_eq!(dup.entries.iter().map(|e| e.count).sum::<usize>(), 50);
    let none = simulate(&[1, 2, 3], 1, 4);
    let never = none.entries.iter().find(|e| e.count == 0).unwrap();
    assert_eq!(never.longest_absence, 1);
    assert_eq!(never.first_pick, None);

    // The views' expanded IDs feed the simulation.
    let p = project();
    let project = Project::load(&p.0);
    let views = hit_lists(&project);
    let l93 = views.iter().find(|v| v.id == 93).unwrap();
    let stats = simulate(&l93.expanded, 300, 9);
    assert_eq!(stats.entries.len(), 3);
    assert_eq!(stats.back_to_back, 0);
}
