//! The cold-start figure of `hitbench bench load`: `hitbench open projects/demo
//! --null-audio` as a child process, timed from its spawn to its first painted frame
//! (the workbench says so on standard output and closes when
//! [`FIRST_FRAME_ENV`](crate::workbench::FIRST_FRAME_ENV) is set). Target: under 400 ms.

use super::super::Io;
use super::Size;
use super::load::{hitbench_exe, ratio};
use super::scratch::Scratch;
use crate::workbench::{self, FIRST_FRAME_ENV, FIRST_FRAME_LINE};
use anyhow::Context as _;
use std::io::BufRead as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Target: from `hitbench open projects/demo` to its first painted frame.
pub const TARGET: Duration = Duration::from_millis(400);

/// Starts timed (full, quick); the median is held against the target.
const STARTS: [usize; 2] = [5, 1];

/// How long a start may take before the benchmark gives up on it.
const GIVE_UP: Duration = Duration::from_secs(60);

/// Prints the cold-start figure, or why it cannot be measured here.
pub fn figure(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    if !workbench::display_available() {
        writeln!(
            io.out,
            "cold start: not measured: it needs a display (DISPLAY and WAYLAND_DISPLAY are \
             unset; run under Xvfb: xvfb-run -a hitbench bench load); target < {} ms",
            TARGET.as_millis()
        )?;
        return Ok(());
    }
    let Some(exe) = hitbench_exe() else {
        writeln!(
            io.out,
            "cold start: not measured: it starts the hitbench binary, and this is not it \
             (the command line runs in-process); target < {} ms",
            TARGET.as_millis()
        )?;
        return Ok(());
    };
    let demo = Path::new(workbench::DEFAULT_PROJECT);
    if !demo.is_dir() {
        writeln!(
            io.out,
            "cold start: not measured: no {} here (run from the repository's root)",
            demo.display()
        )?;
        return Ok(());
    }
    let starts = STARTS[usize::from(size == Size::Quick)];
    let mut times = Vec::with_capacity(starts);
    for _ in 0..starts {
        times.push(start_once(&exe, demo)?);
    }
    times.sort();
    let median = times[times.len() / 2];
    writeln!(
        io.out,
        "cold start: `hitbench open {} --null-audio`, from the spawn to the first painted \
         frame (a fresh settings folder, files in the system's cache): median of {starts} \
         {:.0} ms, best {:.0} ms",
        demo.display(),
        median.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
    )?;
    writeln!(
        io.out,
        "cold start: open to the first painted frame = {:.0} ms; target < {} ms ({})",
        median.as_secs_f64() * 1e3,
        TARGET.as_millis(),
        ratio(median.as_secs_f64(), TARGET.as_secs_f64()),
    )?;
    Ok(())
}

/// One start of the workbench, timed to the line it writes after its first frame.
fn start_once(exe: &Path, demo: &Path) -> anyhow::Result<Duration> {
    // A first run: no layout or recent projects to read, none left behind.
    let config = Scratch::new("cold-start")?;
    let start = Instant::now();
    let mut child = Command::new(exe)
        .arg("open")
        .arg(demo)
        .arg("--null-audio")
        .env(FIRST_FRAME_ENV, "1")
        .env("HITBENCH_CONFIG_DIR", config.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {} open", exe.display()))?;
    let (send, painted) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::Builder::new()
            .name("hitbench-bench-cold-start".into())
            .spawn(move || {
                for line in std::io::BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if line == FIRST_FRAME_LINE {
                        let _ = send.send(Instant::now());
                    }
                }
            })?;
    }
    let result = painted.recv_timeout(GIVE_UP);
    if result.is_err() {
        let _ = child.kill();
    }
    let status = child.wait()?;
    match result {
        Ok(at) => Ok(at.duration_since(start)),
        Err(_) => anyhow::bail!(
            "the workbench did not paint a frame within {} s ({status})",
            GIVE_UP.as_secs()
        ),
    }
}
