//! Projects of several data directories: later ones override by ID and name, late
//! symbols bind at load, broken files are reported with file and line while the rest
//! loads, and every kind of input (sources, built sets, .hot, .evt) is read.

use super::support::{TempProject, args, engine, run_for, started_patches};
use engine_core::runtime::Outcome;
use engine_core::toolchain::project::{MAX_HIT_LIST_IDS, NameValue, Project};
use std::path::PathBuf;

fn base() -> TempProject {
    let p = TempProject::new("base");
    p.file(
        "vox.src",
        "EXTERN hl_cry\nLAYOUT tso\nBINARY [\n\
         baby_cry\n\tloadl v1 #hl_cry\n\tsmart_setlist v1\n\tsmart_choose patch\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file(
        "tables.src",
        "DEFINE hl_cry 500\n\
         LIST [GlobalHitList] hl_cry=10,11\n\
         LIST [Patch] 10=0,cry_a,\"cry_a.wav\",0,0,0,0,0\n\
         LIST [Patch] 11=0,cry_b,\"cry_b.wav\",0,0,0,0,0\n\
         LIST [Patch] 20=0,cry_new,\"cry_new.wav\",0,0,0,0,0\n",
    )
    .sample("cry_a.wav")
    .sample("cry_b.wav")
    .sample("cry_new.wav");
    p
}

#[test]
fn base_project_binds_late_symbols() {
    let p = base();
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    assert_eq!(
        project.hit_lists.get(&500).map(|l| l.entries.clone()),
        Some(vec![10, 11])
    );
    let (mut engine, sink) = engine(project, 1, 0.1);
    engine.trigger("baby_cry", Some(1), args()).unwrap();
    run_for(&mut engine, 0.3);
    let patches = started_patches(&sink.commands());
    assert_eq!(patches.len(), 1);
    assert!([10, 11].contains(&patches[0]));
}

#[test]
fn a_later_directory_overrides_a_track_and_a_hit_list_by_name() {
    let base = base();
    let plugin = TempProject::new("plugin");
    plugin
        .file(
            "override.src",
            "; the plug-in replaces the hit list `hl_cry` and the routine `baby_cry` by name\n\
             DEFINE hl_cry 900\n\
             LIST [GlobalHitList] hl_cry=20\n\
             LAYOUT tso\nBINARY [\n\
             baby_cry\n\tloadl v1 #hl_cry\n\tsmart_setlist v1\n\tsmart_choose patch\n\tprintreg patch\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
        )
        .file("broken.src", "BINARY [\n\tplya v1\n]\n")
        .file("broken.hot", "[Patch]\n21=0,x\n[GlobalHitList]\nnonsense=1,2\n");
    let project = Project::load_dirs(&[base.path().to_path_buf(), plugin.path().to_path_buf()]);
    // The broken files are reported with file and line…
    let problems: Vec<(PathBuf, u32, String)> = project
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.file.clone(), d.line, d.message.clone()))
        .collect();
    assert!(
        problems.iter().any(|(f, l, m)| f.ends_with("broken.src")
            && *l == 2
            && m.contains("unknown mnemonic `plya`")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|(f, l, m)| f.ends_with("broken.hot") && *l == 4 && m.contains("nonsense")),
        "{problems:#?}"
    );
    // …and everything else loaded: the plug-in's definitions win.
    assert_eq!(
        project.hit_lists.get(&900).map(|l| l.entries.clone()),
        Some(vec![20])
    );
    let cry = project.label("baby_cry").expect("baby_cry");
    let NameValue::Code(at) = cry.value else {
        panic!("baby_cry is code")
    };
    assert!(project.units[at.unit].path().ends_with("override.src"));
    assert!(project.overrides.iter().any(|o| o.what == "name baby_cry"));
    let (mut engine, sink) = engine(project, 1, 0.1);
    assert!(matches!(
        engine.trigger("baby_cry", Some(1), args()),
        Ok(Outcome::Started { .. })
    ));
    run_for(&mut engine, 0.3);
    assert_eq!(started_patches(&sink.commands()), [20]);
}

#[test]
fn unbound_symbols_name_the_file_the_symbol_and_the_user() {
    let p = TempProject::new("unbound");
    p.file(
        "a.src",
        "EXTERN nowhere\nBINARY [\nuser\n\tloadl patch #nowhere\n\tend\n]\n",
    );
    let project = p.load();
    let d = project
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .expect("an error");
    assert!(d.file.ends_with("a.src"), "{d}");
    assert_eq!(d.line, 4);
    assert!(d.message.contains("cannot bind `nowhere`"), "{d}");
    assert!(d.message.contains("no data directory defines it"), "{d}");
    assert!(d.message.contains("a.src"), "{d}");
}

#[test]
fn list_line_problems_point_at_the_source_line() {
    let p = TempProject::new("listlines");
    p.file("a.src", "; tables\nLIST [Track] 0x10=0,missing_label,1024\nLIST [Patch] 5=0,x,\"gone.wav\",0,0,0,0,0\n");
    let project = p.load();
    let found: Vec<(u32, u32, String)> = project
        .diagnostics
        .iter()
        .map(|d| (d.line, d.column, d.message.clone()))
        .collect();
    assert!(
        found
            .iter()
            .any(|(l, _, m)| *l == 2 && m.contains("subroutine `missing_label`")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|(l, _, m)| *l == 3 && m.contains("sample file `gone.wav` not found")),
        "{found:#?}"
    );
    assert!(
        project
            .diagnostics
            .iter()
            .all(|d| d.file.ends_with("a.src"))
    );
}

#[test]
fn built_sets_and_evt_lists_load() {
    // Assemble a source into a built set in one directory, then load that directory:
    // the .hit's ENTP table and a .evt list give TSO-style events.
    let build = TempProject::new("built");
    let source = "LAYOUT tso\nBINARY [\nbeep\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n\
                  \t69 78 84 80\n\t#0x4242 #beep\n\t69 69 78 84\n]\n";
    let assembly = engine_core::toolchain::asm::assemble_text(
        &build.path().join("gen.src"),
        source,
        &engine_core::toolchain::asm::AsmOptions::default(),
        &engine_core::toolchain::asm::DiskFiles::within(&[build.path().to_path_buf()]),
    );
    assert!(!assembly.has_errors());
    let data = TempProject::new("data");
    std::fs::write(data.path().join("sfx.hit"), assembly.hit.bytes()).unwrap();
    std::fs::write(data.path().join("sfx.hsm"), assembly.hsm().to_text()).unwrap();
    data.file("events.evt", "ding, 1, 0x4242, 0, 0, 0, 0\r\n")
        .file("patches.hot", "[Patch]\n1=0,beep,\"b.wav\",0,0,0,0,0\n")
        .sample("b.wav");
    let project = data.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let track = project.track(0x4242).expect("track from the ENTP table");
    assert_eq!(&*track.name, "beep");
    let (mut engine, sink) = engine(project, 1, 0.1);
    engine.trigger("DING", None, args()).unwrap();
    run_for(&mut engine, 0.2);
    assert_eq!(started_patches(&sink.commands()), [1]);
}

#[test]
fn a_missing_directory_is_reported_and_the_others_load() {
    let p = base();
    let project = Project::load_dirs(&[PathBuf::from("/no/such/dir"), p.path().to_path_buf()]);
    assert_eq!(project.diagnostics.len(), 1, "{:#?}", project.diagnostics);
    assert!(
        project.diagnostics[0]
            .message
            .contains("data directory not found")
    );
    assert!(project.event("baby_cry").is_some());
}

#[test]
fn a_directory_added_after_start_is_loaded_at_once() {
    let base = base();
    let plugin = TempProject::new("late");
    plugin.file(
        "late.src",
        "LAYOUT tso\nBINARY [\nlate_sound\n\tloadb patch 20\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    );
    let (mut engine, sink) = engine(base.load(), 1, 0.1);
    assert!(engine.trigger("late_sound", None, args()).is_err());
    let problems = engine.add_directory(plugin.path());
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(engine.project().dirs.len(), 2);
    engine.trigger("late_sound", None, args()).unwrap();
    run_for(&mut engine, 0.2);
    assert_eq!(started_patches(&sink.commands()), [20]);
}

#[test]
fn hit_lists_expand_within_the_project_budget() {
    // Found by the fuzzer: 3 KB of `[GlobalHitList]` lines of long ranges expanded to
    // over 100 MB (and made `check` list every ID). Lists past the budget are refused.
    let p = base();
    let lists = usize::try_from(MAX_HIT_LIST_IDS).unwrap() / 65_536 + 8;
    let mut text = String::from("[GlobalHitList]\n");
    for k in 0..lists {
        text.push_str(&format!("{}=0-65535\n", 5000 + k));
    }
    p.file("lists.hot", &text);
    let project = p.load();
    let expanded: usize = project.hit_lists.values().map(|l| l.entries.len()).sum();
    assert!(
        expanded as u64 <= MAX_HIT_LIST_IDS,
        "{expanded} IDs expanded"
    );
    let refused: Vec<_> = project
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("more than"))
        .collect();
    assert!(refused.len() >= 8, "{:#?}", project.diagnostics);
    assert!(project.hit_lists.len() >= lists - 9);
    assert!(refused[0].file.ends_with("lists.hot"), "{}", refused[0]);
    assert!(project.event("baby_cry").is_some());
}
