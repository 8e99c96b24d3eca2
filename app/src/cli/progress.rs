//! Progress bars for long commands (`render`, `test`, loading a project): drawn on standard error when it is
//! a terminal ([`Io::progress`]), with the share done and the time left, and cleared when
//! the work ends, so only the results stay on screen. When standard error is not a
//! terminal (a pipe, a CI log, a test's buffer) there is no bar and nothing is written.

use super::Io;
use engine_core::toolchain::project::{LoadWatch, Project};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::time::Duration;

/// A bar for one piece of work, or nothing when the output is not a terminal.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar for `what`, `total` steps long (frames, scripts …), shown only when `io`
    /// draws progress.
    pub fn new(io: &Io<'_>, what: &str, total: u64) -> Self {
        if !io.progress {
            return Self { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
            .with_message(what.to_string());
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{bar:32}] {percent:>3}% · {elapsed} gone · {eta} left",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Self { bar: Some(bar) }
    }

    /// Moves the bar to `done` steps.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Sets how many steps the work has, once it is known.
    pub fn set_total(&self, total: u64) {
        if let Some(bar) = &self.bar
            && bar.length() != Some(total)
        {
            bar.set_length(total);
        }
    }

    /// One more step done.
    pub fn step(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Runs `write` with the bar taken off the screen (for lines written to standard
    /// error while it shows), then draws it again.
    pub fn around<R>(&self, write: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}

/// Loads a project's data folders, with a bar of the files read on a terminal (the load
/// runs on a helper thread while this one draws); without one, as
/// [`Project::load_dirs`] does.
pub fn load_project(io: &Io<'_>, dirs: &[PathBuf]) -> Project {
    load_project_watched(io, dirs, LoadWatch::default())
}

/// [`load_project`] through `watch` (one with a hook for the samples found, say).
pub fn load_project_watched(io: &Io<'_>, dirs: &[PathBuf], watch: LoadWatch) -> Project {
    if !io.progress {
        return Project::load_dirs_watched(dirs, &watch)
            .unwrap_or_else(|| Project::load_dirs(dirs));
    }
    let what = format!(
        "loading {}",
        dirs.first()
            .map_or_else(String::new, |d| d.display().to_string())
    );
    // One step until the walk has found files (a bar of none would read 100 %).
    let bar = Bar::new(io, &what, 1);
    std::thread::scope(|scope| {
        let loading = scope.spawn(|| Project::load_dirs_watched(dirs, &watch));
        while !loading.is_finished() {
            if watch.found() > 0 {
                bar.set_total(watch.found());
            }
            bar.set(watch.read());
            std::thread::sleep(Duration::from_millis(50));
        }
        loading.join().ok().flatten()
    })
    // Nothing cancels this load, and a load never fails; a panic on the helper thread
    // is the only way here: load again where it shows.
    .unwrap_or_else(|| Project::load_dirs(dirs))
}

impl Drop for Bar {
    /// The work ended (or failed): the bar leaves the screen.
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_terminal_there_is_no_bar_and_nothing_is_written() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let io = Io {
            out: &mut out,
            err: &mut err,
            progress: false,
        };
        let bar = Bar::new(&io, "rendering", 100);
        assert!(bar.bar.is_none());
        bar.set(50);
        bar.step();
        assert_eq!(bar.around(|| 7), 7);
        drop(bar);
        assert!(out.is_empty() && err.is_empty());
    }

    #[test]
    fn on_a_terminal_the_bar_follows_the_work() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let io = Io {
            out: &mut out,
            err: &mut err,
            progress: true,
        };
        let bar = Bar::new(&io, "rendering", 100);
        let inner = bar.bar.clone().unwrap();
        bar.set(40);
        bar.step();
        assert_eq!(inner.position(), 41);
        assert_eq!(inner.length(), Some(100));
        assert_eq!(inner.message(), "rendering");
        drop(bar);
        assert!(inner.is_finished());
    }
}
