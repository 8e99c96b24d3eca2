//! `savelot` from a session: refused unless the session allows it, only inside the
//! project's folders when that is the rule, never over something that is not a regular
//! file or through a planted temporary file, and lossless — comments, lines that did not
//! parse and coordinates as written stay byte for byte; only changed lines are rewritten.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::session::{SaveLotPolicy, Session, SessionConfig};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const WORLD: &str = "[Lot]\nFile = home.lot\n";

/// Comments after the header, a line that does not parse, a coordinate f32 cannot hold,
/// a trailing comment, a duplicate `hour`, CRLF on one line and no newline at the end.
const LOT: &str = "# a test lot\n\nhour 9\nhour 14   # the later one counts\nmode live\n# -- people --\nobject 1 person \"Left\" at 16777217 12 gender=male # far\nobject 3 spaceship at 1 1\r\nobject 2 person \"Right\" at 12.50 8 gender=female creativity=5\n\n  # trailing notes\ncamera 10 10 zoom 1";

/// A temporary folder, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-savelot-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir.canonicalize().unwrap())
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A project folder (`<temp>/project`) with the lot, and a folder beside it.
struct Lot {
    temp: Temp,
}

impl Lot {
    fn new(tag: &str, lot: &str) -> Self {
        let temp = Temp::new(tag);
        std::fs::create_dir_all(temp.join("project")).unwrap();
        std::fs::create_dir_all(temp.join("outside")).unwrap();
        std::fs::write(temp.join("project/world.ini"), WORLD).unwrap();
        std::fs::write(temp.join("project/home.lot"), lot).unwrap();
        Self { temp }
    }

    fn project_dir(&self) -> PathBuf {
        self.temp.join("project")
    }

    fn file(&self, name: &str) -> PathBuf {
        self.temp.join(name)
    }

    fn session(&self, policy: Option<SaveLotPolicy>) -> Session {
        let (handle, _mixer) = mixer(MixerConfig::default());
        let mut config = SessionConfig::default();
        if let Some(policy) = policy {
            config.save_lot = policy;
        }
        Session::new(Project::load(&self.project_dir()), handle, config)
    }
}

fn refused(session: &mut Session, line: &str, why: &str) -> String {
    match session.run_line(line) {
        Ok(reply) => panic!("`{line}` should be refused, but: {reply}"),
        Err(e) => {
            assert!(e.contains(why), "`{line}`: {e}");
            e
        }
    }
}

#[test]
fn savelot_is_refused_unless_the_session_allows_it() {
    let lot = Lot::new("denied", LOT);
    let mut session = lot.session(None);
    session.run_line("move 1 3 3").unwrap();
    let e = refused(&mut session, "savelot", "not allowed");
    assert!(e.contains("--allow-savelot"), "{e}");
    let away = lot.file("outside/x.lot");
    refused(
        &mut session,
        &format!("savelot {}", away.display()),
        "not allowed",
    );
    assert_eq!(
        std::fs::read_to_string(lot.file("project/home.lot")).unwrap(),
        LOT
    );
    assert!(!away.exists());
}

#[test]
fn inside_the_project_means_inside_after_resolving_links_and_dots() {
    let lot = Lot::new("inside", LOT);
    std::fs::create_dir_all(lot.file("project/sub")).unwrap();
    std::os::unix::fs::symlink(lot.file("outside"), lot.file("project/escape")).unwrap();
    let mut session = lot.session(Some(SaveLotPolicy::InsideProject));
    let away = lot.file("outside/x.lot");
    for target in [
        away.display().to_string(),
        "../outside/x.lot".to_string(),
        "sub/../../outside/x.lot".to_string(),
        "escape/x.lot".to_string(),
    ] {
        refused(
            &mut session,
            &format!("savelot {target}"),
            "outside the project",
        );
    }
    assert!(!away.exists());
    // Relative paths are the project's; a new file inside is fine.
    let reply = session.run_line("savelot sub/copy.lot").unwrap();
    assert!(reply.contains("copy.lot"), "{reply}");
    assert_eq!(
        std::fs::read_to_string(lot.file("project/sub/copy.lot")).unwrap(),
        LOT
    );
}

#[test]
fn never_over_something_that_is_not_a_regular_file() {
    let lot = Lot::new("special", LOT);
    let fifo = lot.file("project/pipe.lot");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let null = lot.file("project/null.lot");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    std::fs::create_dir_all(lot.file("project/folder.lot")).unwrap();
    let mut session = lot.session(Some(SaveLotPolicy::Anywhere));
    for name in ["pipe.lot", "null.lot", "folder.lot"] {
        refused(
            &mut session,
            &format!("savelot {name}"),
            "not a regular file",
        );
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(std::fs::read_link(&null).unwrap(), Path::new("/dev/null"));
    assert!(lot.file("project/folder.lot").is_dir());
    // Anywhere means any regular file the user picked, outside too.
    let away = lot.file("outside/picked.lot");
    session
        .run_line(&format!("savelot {}", away.display()))
        .unwrap();
    assert_eq!(std::fs::read_to_string(&away).unwrap(), LOT);
}

#[test]
fn a_planted_temporary_file_is_not_written_through() {
    let lot = Lot::new("planted", LOT);
    let victim = lot.file("outside/precious.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, lot.file("project/.home.lot.tmp")).unwrap();
    let mut session = lot.session(Some(SaveLotPolicy::InsideProject));
    session.run_line("move 1 5 5").unwrap();
    session.run_line("savelot").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let saved = std::fs::read_to_string(lot.file("project/home.lot")).unwrap();
    assert!(saved.contains("at 5 5"), "{saved}");
}

#[test]
fn a_lot_file_named_outside_the_project_is_not_written() {
    let lot = Lot::new("named-outside", LOT);
    std::fs::write(lot.file("outside/their.lot"), LOT).unwrap();
    std::fs::write(
        lot.file("project/world.ini"),
        "[Lot]\nFile = ../outside/their.lot\n",
    )
    .unwrap();
    let mut session = lot.session(Some(SaveLotPolicy::InsideProject));
    refused(&mut session, "savelot", "outside the project");
    assert_eq!(
        std::fs::read_to_string(lot.file("outside/their.lot")).unwrap(),
        LOT
    );
}

#[test]
fn saving_an_unchanged_lot_keeps_every_byte() {
    let lot = Lot::new("unchanged", LOT);
    let mut session = lot.session(Some(SaveLotPolicy::InsideProject));
    session.run_line("savelot").unwrap();
    let path = lot.file("project/home.lot");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), LOT);
    // A second session reads what the first saved and saves it again unchanged.
    let mut again = lot.session(Some(SaveLotPolicy::InsideProject));
    again.run_line("savelot").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), LOT);
}

#[test]
fn a_move_rewrites_only_the_moved_objects_line() {
    let lot = Lot::new("moved", LOT);
    let mut session = lot.session(Some(SaveLotPolicy::InsideProject));
    session.run_line("move 2 3.25 -4").unwrap();
    session.run_line("savelot").unwrap();
    let path = lot.file("project/home.lot");
    let saved = std::fs::read_to_string(&path).unwrap();
    let expected = LOT.replace("at 12.50 8", "at 3.25 -4");
    assert_eq!(saved, expected);
    // Other changes rewrite their own line and add what was missing, nothing else.
    session.run_line("hour 21:30").unwrap();
    session.run_line("control 2").unwrap();
    session.run_line("field 1 neat 7").unwrap();
    session.run_line("savelot").unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    let changed: Vec<(&str, &str)> = expected
        .split_inclusive('\n')
        .zip(saved.split_inclusive('\n'))
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        changed,
        vec![
            (
                "hour 14   # the later one counts\n",
                "hour 21.5   # the later one counts\n"
            ),
            (
                "object 1 person \"Left\" at 16777217 12 gender=male # far\n",
                "object 1 person \"Left\" at 16777217 12 gender=male neat=7 # far\n"
            ),
            // The last line gets the newline the added line needs.
            ("camera 10 10 zoom 1", "camera 10 10 zoom 1\n"),
        ],
        "{saved}"
    );
    assert!(
        saved.ends_with("camera 10 10 zoom 1\ncontrolled 2\n"),
        "{saved}"
    );
    let (back, _) = engine_core::world::lot::Lot::load(&path);
    assert_eq!(back.controlled, Some(2));
    assert_eq!(back.hour, 21.5);
    assert_eq!(back.objects.get(1).unwrap().fields[20], 7);
}

/// `path` written relative to the working folder (`../../tmp/…`), as a project named on
/// the command line often is.
fn relative_to_here(path: &Path) -> PathBuf {
    let here = std::env::current_dir().unwrap();
    let mut relative = PathBuf::new();
    for _ in here.components().skip(1) {
        relative.push("..");
    }
    relative.join(path.strip_prefix("/").unwrap())
}

#[test]
fn a_project_named_by_a_relative_path_saves_its_own_lot_file_and_files_in_it() {
    let lot = Lot::new("relative", LOT);
    let (handle, _mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        save_lot: SaveLotPolicy::InsideProject,
        ..SessionConfig::default()
    };
    let folder = relative_to_here(&lot.project_dir());
    assert!(
        folder.is_relative() && folder.is_dir(),
        "{}",
        folder.display()
    );
    let mut session = Session::new(Project::load(&folder), handle, config);
    session.run_line("move 1 5 5").unwrap();
    // `savelot` writes the lot file world.ini names — not `project/project/home.lot`.
    let reply = session.run_line("savelot").unwrap();
    assert!(!lot.file("project/project").exists(), "{reply}");
    let saved = std::fs::read_to_string(lot.file("project/home.lot")).unwrap();
    assert!(saved.contains("at 5 5"), "{saved}");
    // A file given is the project folder's.
    session.run_line("savelot copy.lot").unwrap();
    assert!(lot.file("project/copy.lot").is_file());
}
