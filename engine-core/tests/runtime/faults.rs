//! A track that never yields, divides by zero, jumps out of range or recurses without end
//! is stopped with a message naming event, track, address and `file:line`, while the
//! other tracks keep running.

use super::support::{TempProject, args, engine, records, run_for, started_patches};
use engine_core::runtime::TraceKind;

const SOURCE: &str = "\
LAYOUT tso
BINARY [
spinner
\tloadb v1 0
spin
\tinc v1
\tjump @spin

divider
\tloadb v1 5
\tloadb v2 0
\tdiv v1 v2
\tend

wanderer
\tjump #100000

recurser
\tcall @recurser

bystander
\tloadb patch 1
again
\tnote_on v1
\twait_samp
\tjump @again
]
";

#[test]
fn each_fault_stops_only_its_track_and_names_file_and_line() {
    let p = TempProject::new("faults");
    p.file("faults.src", SOURCE)
        .file("t.hot", "[Patch]\n1=0,tick,\"s.wav\",0,0,0,0,0\n")
        .sample("s.wav");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (mut engine, sink) = engine(project, 1, 0.05);
    engine.trigger("bystander", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    for track in ["spinner", "divider", "wanderer", "recurser"] {
        engine.trigger(track, None, args()).unwrap();
    }
    run_for(&mut engine, 1.0);
    let trace = engine.take_trace();
    let errors = records(&trace, TraceKind::Error);
    let file = p.path().join("faults.src").display().to_string();
    let expect = |track: &str, line: u32, what: &str| {
        let record = errors
            .iter()
            .find(|r| r.track.as_deref() == Some(track))
            .unwrap_or_else(|| panic!("no fault for {track}: {errors:#?}"));
        let place = format!("({file}:{line})");
        assert!(
            record.message.contains(&place),
            "{track}: {}",
            record.message
        );
        assert!(record.message.contains(what), "{track}: {}", record.message);
        assert!(
            record.message.contains(&format!("event `{track}`")),
            "{}",
            record.message
        );
        assert!(record.message.contains("address 0x"), "{}", record.message);
    };
    expect("spinner", 7, "without yielding");
    expect("divider", 12, "divide by zero");
    expect("wanderer", 16, "outside the code");
    expect("recurser", 19, "call stack overflow");
    assert_eq!(errors.len(), 4, "{errors:#?}");
    // The bystander kept playing all along: one note every 0.05 s for 1.1 s.
    let played = started_patches(&sink.commands()).len();
    assert!(played >= 20, "{played}");
    let active: Vec<String> = engine
        .active_tracks()
        .iter()
        .map(|t| t.track_name.to_string())
        .collect();
    assert_eq!(active, ["bystander"]);
}
