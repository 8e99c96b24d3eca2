//! The renderer `bench ui` paints with: the one the workbench's window would use —
//! egui's OpenGL renderer (`paint_gl`), or egui's wgpu renderer (`paint`) when
//! `HITBENCH_RENDERER=wgpu` chooses it, as it does for the window. Where OpenGL cannot
//! be had headless (no EGL device), wgpu paints, and the renderer's line says why.

use super::paint::Painter;
use super::paint_gl::GlPainter;
use crate::workbench;

/// egui's renderer, painting offscreen.
pub enum Renderer {
    /// egui_glow on a headless EGL context.
    Gl(GlPainter),
    /// egui_wgpu on a headless adapter; with why OpenGL could not paint when it was
    /// not chosen.
    Wgpu(Painter, Option<String>),
}

impl Renderer {
    /// The renderer the window would use, for a screen of `size` pixels at
    /// `pixels_per_point`; `Err` says why there is none.
    pub fn new(size: [u32; 2], pixels_per_point: f32) -> Result<Self, String> {
        if workbench::wgpu_chosen() {
            return Painter::new(size, pixels_per_point).map(|p| Self::Wgpu(p, None));
        }
        match GlPainter::new(size, pixels_per_point) {
            Ok(painter) => Ok(Self::Gl(painter)),
            Err(gl) => Painter::new(size, pixels_per_point)
                .map(|p| Self::Wgpu(p, Some(gl.clone())))
                .map_err(|wgpu| format!("no OpenGL ({gl}) and no wgpu ({wgpu})")),
        }
    }

    /// Paints one frame: the screen cleared to `clear` (normalised, gamma), the texture
    /// changes, then the meshes; waits until the frame is drawn.
    pub fn paint(
        &mut self,
        textures: &mut egui::TexturesDelta,
        primitives: &[egui::ClippedPrimitive],
        clear: [f32; 4],
    ) -> Result<(), String> {
        match self {
            Self::Gl(painter) => painter.paint(textures, primitives, clear),
            Self::Wgpu(painter, _) => painter.paint(textures, primitives, clear),
        }
    }

    /// Whether it rasterises on the CPU.
    pub fn software(&self) -> bool {
        match self {
            Self::Gl(painter) => painter.software,
            Self::Wgpu(painter, _) => painter.software,
        }
    }

    /// What paints, as a person names it: "egui_glow (OpenGL) on llvmpipe (LLVM 15.0.6,
    /// 256 bits), software: rasterised on the CPU".
    pub fn describe(&self) -> String {
        let cpu = if self.software() {
            ", software: rasterised on the CPU"
        } else {
            ""
        };
        match self {
            Self::Gl(painter) => format!("egui_glow (OpenGL) on {}{cpu}", painter.adapter),
            Self::Wgpu(painter, None) => format!("egui_wgpu on {}", painter.adapter),
            Self::Wgpu(painter, Some(gl)) => format!(
                "egui_wgpu on {} (the window paints with OpenGL, which could not be had \
                 headless here: {gl})",
                painter.adapter
            ),
        }
    }
}
