//! Timing a cold start (`hitbench bench load`): with `HITBENCH_EXIT_AFTER_FIRST_FRAME`
//! set, the workbench says on standard output when its first frame has been painted,
//! then closes.

use std::io::Write as _;

/// The environment variable that asks for the line and the close.
pub const FIRST_FRAME_ENV: &str = "HITBENCH_EXIT_AFTER_FIRST_FRAME";

/// The line written once the first frame is painted.
pub const FIRST_FRAME_LINE: &str = "hitbench: first frame painted";

/// Counts frames when asked to by [`FIRST_FRAME_ENV`]; does nothing otherwise.
#[derive(Debug, Default)]
pub(super) struct FirstFrameExit {
    /// Frames begun so far; `None` when not asked.
    frames: Option<u32>,
}

impl FirstFrameExit {
    /// Asked for when [`FIRST_FRAME_ENV`] is set and not empty.
    pub(super) fn from_env() -> Self {
        let asked = std::env::var_os(FIRST_FRAME_ENV).is_some_and(|v| !v.is_empty());
        Self {
            frames: asked.then_some(0),
        }
    }

    /// Called as each frame begins. The first asks for a second at once; the second
    /// begins only after the first was painted and shown (eframe paints and swaps a
    /// frame before it starts the next), so that is when the line is written.
    pub(super) fn frame_begins(&mut self, ctx: &egui::Context) {
        let Some(frames) = &mut self.frames else {
            return;
        };
        *frames += 1;
        match *frames {
            1 => ctx.request_repaint(),
            2 => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{FIRST_FRAME_LINE}");
                let _ = out.flush();
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            _ => {}
        }
    }
}
