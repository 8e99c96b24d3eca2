//! QA scripts are watched with the data folders: a script written, changed, renamed or
//! removed is noticed — for the workbench's QA tab, which lists the suite again — and
//! nothing is reloaded or traced for it.

use crate::support::looping_tracks;
use engine_core::host::reload::{Reload, ReloadConfig, ReloadStatus, Reloader};
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::TraceKind;
use engine_core::sound::mixer::{MixerConfig, mixer};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The next reload that noticed something, within 10 s.
fn next_notice(reloads: &Receiver<Reload>, what: &str) -> Reload {
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: not noticed"
        );
        if let Ok(reload) = reloads.recv_timeout(Duration::from_millis(20))
            && !reload.noticed.is_empty()
        {
            return reload;
        }
    }
}

#[test]
fn a_qa_script_written_changed_renamed_or_removed_is_noticed_and_reloads_nothing() {
    let p = looping_tracks("qa-notices", &[40], 1024, "");
    std::fs::create_dir_all(p.path().join("qa")).unwrap();
    let project = p.load();
    let (handle, _mixer) = mixer(MixerConfig::default());
    let mut session = Session::new(project.clone(), handle, SessionConfig::default());
    let config = ReloadConfig::default();
    let (_reloader, reloads) = Reloader::with_channel(
        &project,
        std::sync::Arc::clone(session.server.cache()),
        config,
    )
    .unwrap();
    let mut status = ReloadStatus::default();
    session.take_trace();
    let a = p.path().join("qa/a.qa");
    let b = p.path().join("qa/b.qa");
    let steps: [(&str, &dyn Fn(), &Path); 4] = [
        ("written", &|| std::fs::write(&a, "0 ui t0\n").unwrap(), &a),
        (
            "changed",
            &|| std::fs::write(&a, "0 ui t0\n1 expect no fault\n").unwrap(),
            &a,
        ),
        ("renamed", &|| std::fs::rename(&a, &b).unwrap(), &b),
        ("removed", &|| std::fs::remove_file(&b).unwrap(), &b),
    ];
    for (n, (what, act, path)) in steps.into_iter().enumerate() {
        act();
        let reload = next_notice(&reloads, what);
        let noticed: Vec<PathBuf> = reload
            .noticed
            .iter()
            .map(|f| f.canonicalize().unwrap_or_else(|_| f.clone()))
            .collect();
        let expected = path
            .parent()
            .unwrap()
            .canonicalize()
            .unwrap()
            .join(path.file_name().unwrap());
        assert!(noticed.contains(&expected), "{what}: {noticed:?}");
        assert!(reload.project.is_none(), "{what}: nothing to load");
        assert!(
            reload.files.is_empty() && reload.samples.is_empty(),
            "{what}"
        );
        assert!(reload.is_status_only(), "{what}");
        status.apply(&mut session, reload, &config);
        assert_eq!(status.noticed, n as u64 + 1, "{what}");
        assert_eq!(status.applied, 0, "{what}: nothing was reloaded");
    }
    session.tick();
    assert!(
        session
            .take_trace()
            .iter()
            .all(|r| r.kind != TraceKind::Reload),
        "nothing traced as a reload"
    );
}
