//! How the window is painted, and how often it refreshes on its own.
//!
//! The window paints with OpenGL (`native_options`). It repaints on input, on the
//! engine's news, and — while background work runs or a pane in view moves on its own
//! (meters, voice lanes, the lot view's plots) — on a timer: four times a second, what a
//! person follows. On a machine without a GPU the frames are painted by a software
//! renderer (Mesa's llvmpipe, a CPU wgpu adapter), where one frame of the workbench costs
//! about 15 ms of CPU through OpenGL (the demo playing in a 1280×800 window, `bench ui
//! --window`) and several times that through wgpu; there the timer runs twice a second,
//! so that watching a project play does not take the core its audio needs, and the
//! status bar says so.

use super::Workbench;
use std::time::Duration;

/// The refresh while something in view moves, on a GPU.
const LIVE_REFRESH: Duration = Duration::from_millis(250);

/// The refresh while something in view moves, on a software renderer.
const SOFTWARE_REFRESH: Duration = Duration::from_millis(500);

/// The window's options: 1280×800, titled `title`, painted with OpenGL — on a machine
/// without a GPU (a software renderer such as llvmpipe) a frame costs a quarter of what
/// it costs through wgpu's Vulkan path. `HITBENCH_RENDERER=wgpu` chooses wgpu. No
/// dithering: the workbench paints flat colours, and dithering costs every pixel.
pub fn native_options(title: &str) -> eframe::NativeOptions {
    let renderer = if wgpu_chosen() {
        eframe::Renderer::Wgpu
    } else {
        eframe::Renderer::Glow
    };
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(title)
            .with_inner_size([1280.0, 800.0]),
        renderer,
        dithering: false,
        ..Default::default()
    }
}

/// Whether `HITBENCH_RENDERER=wgpu` chooses wgpu over OpenGL.
pub fn wgpu_chosen() -> bool {
    std::env::var("HITBENCH_RENDERER").is_ok_and(|name| name.eq_ignore_ascii_case("wgpu"))
}

/// The name of the renderer painting the window when it is a software one (llvmpipe,
/// softpipe, swrast, a CPU wgpu adapter); `None` on a GPU.
pub fn software_renderer(cc: &eframe::CreationContext<'_>) -> Option<String> {
    if let Some(gl) = &cc.gl {
        let name = gl_renderer(gl);
        return is_software(&name).then_some(name);
    }
    let state = cc.wgpu_render_state.as_ref()?;
    let info = state.adapter.get_info();
    (info.device_type == eframe::wgpu::DeviceType::Cpu || is_software(&info.name))
        .then_some(info.name)
}

/// The OpenGL context's `GL_RENDERER` string ("llvmpipe (LLVM 19.1.7, 256 bits)").
#[allow(unsafe_code)]
fn gl_renderer(gl: &eframe::glow::Context) -> String {
    use eframe::glow::HasContext as _;
    // SAFETY: `glGetString(GL_RENDERER)` on the context eframe made current for this
    // window, before any frame: a read of a constant string that every OpenGL version
    // has (egui_glow's painter reads it the same way when it starts).
    unsafe { gl.get_parameter_string(eframe::glow::RENDERER) }
}

/// True for the name of a renderer that paints on the CPU.
pub(crate) fn is_software(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "llvmpipe",
        "softpipe",
        "swrast",
        "software",
        "swiftshader",
        "lavapipe",
    ]
    .iter()
    .any(|s| name.contains(s))
}

/// The colour the window's renderer clears to before each frame (normalised, gamma): the
/// panels' own, so that the central panel need not paint it again — a whole screen of
/// pixels, which a software renderer pays for in every frame.
pub fn clear_color(visuals: &egui::Visuals) -> [f32; 4] {
    visuals.panel_fill.to_normalized_gamma_f32()
}

/// How long a frame may spend indexing trace records against a new filter: what the
/// 8 ms frame has left beside the rest of it, less on a software renderer, whose paint
/// takes most of the frame.
pub fn index_budget(software: bool) -> Duration {
    if software {
        panels::SOFTWARE_INDEX_BUDGET
    } else {
        panels::DEFAULT_INDEX_BUDGET
    }
}

/// The central panel's frame: its margins, and its fill only where the renderer does not
/// clear to that colour already (`clear_color`; a test harness clears to transparent).
pub fn central_frame(style: &egui::Style, cleared: bool) -> egui::Frame {
    let frame = egui::Frame::central_panel(style);
    if cleared {
        frame.fill(egui::Color32::TRANSPARENT)
    } else {
        frame
    }
}

impl Workbench {
    /// Tells the workbench its window's renderer clears to [`clear_color`] before each
    /// frame (eframe does, with `App::clear_color`), so the central panel paints no fill.
    pub fn set_cleared(&mut self, cleared: bool) {
        self.cleared = cleared;
    }

    /// The central panel's frame (see [`central_frame`]).
    pub(super) fn central_frame(&self, style: &egui::Style) -> egui::Frame {
        central_frame(style, self.cleared)
    }

    /// Tells the workbench which software renderer paints its window, drawn with `ctx`
    /// (`None`: a GPU does). There the text cursor does not blink: a blink repaints twice
    /// a second, ~15 ms of CPU a frame — with the console focused, 3 % of a core with
    /// nothing playing.
    pub fn set_software_renderer(&mut self, name: Option<String>, ctx: &egui::Context) {
        self.panels.traces.index_budget = index_budget(name.is_some());
        if name.is_some() {
            ctx.all_styles_mut(|style| style.visuals.text_cursor.blink = false);
        }
        self.software_renderer = name;
    }

    /// How often the window refreshes while something in view moves.
    pub(super) fn live_refresh(&self) -> Duration {
        if self.software_renderer.is_some() {
            SOFTWARE_REFRESH
        } else {
            LIVE_REFRESH
        }
    }

    /// The status bar's note about a software renderer, if one paints the window.
    pub(super) fn renderer_ui(&self, ui: &mut egui::Ui) {
        if let Some(name) = &self.software_renderer {
            ui.separator();
            ui.weak("software rendering").on_hover_text(format!(
                "No GPU: {name} paints the window on the CPU, about 15 ms a frame, so \
                 meters, voice lanes and plots refresh twice a second instead of four times"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_renderers_are_told_from_gpus() {
        assert!(is_software("llvmpipe (LLVM 19.1.7, 256 bits)"));
        assert!(is_software("Mesa softpipe"));
        assert!(is_software("SwiftShader Device (Subzero)"));
        assert!(!is_software(
            "AMD Radeon RX 6600 (radeonsi, navi23, LLVM 19.1.7)"
        ));
        assert!(!is_software("NVIDIA GeForce RTX 3060/PCIe/SSE2"));
    }
}
