//! Painting for `bench ui` with OpenGL, as the workbench's window paints by default:
//! egui's own glow renderer (`egui_glow::Painter`, the one eframe paints a glow window
//! with) drawing a frame's tessellated meshes into an offscreen framebuffer of the
//! screen's size, on a headless EGL context (no window, no surface; Mesa's software
//! device, llvmpipe, where there is no GPU). Each paint clears the framebuffer, uploads
//! the frame's texture changes, draws the meshes and waits until OpenGL is done
//! (`glFinish`), so its time is the time the frame really took to draw.

use eframe::egui_glow::{self, glow};
use glow::HasContext as _;
use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, Version};
use glutin::display::GlDisplay as _;
use std::ffi::CStr;
use std::sync::Arc;

/// egui's glow renderer with its context and an offscreen framebuffer.
pub struct GlPainter {
    painter: egui_glow::Painter,
    gl: Arc<glow::Context>,
    /// Kept current for as long as the painter paints.
    _context: PossiblyCurrentContext,
    framebuffer: glow::Framebuffer,
    renderbuffer: glow::Renderbuffer,
    size: [u32; 2],
    pixels_per_point: f32,
    /// The renderer, as OpenGL names it: "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub adapter: String,
    /// Whether it rasterises on the CPU.
    pub software: bool,
}

/// The EGL devices, a GPU's before a software one's (Mesa's is
/// `EGL_MESA_device_software`).
fn devices() -> Result<Vec<Device>, String> {
    let mut devices: Vec<Device> = Device::query_devices()
        .map_err(|e| format!("no EGL devices: {e}"))?
        .collect();
    devices.sort_by_key(|d| d.extensions().contains("EGL_MESA_device_software"));
    Ok(devices)
}

/// An OpenGL 3.3 context on `device`, current without a surface.
#[allow(unsafe_code)]
fn context(device: &Device) -> Result<(Display, PossiblyCurrentContext), String> {
    // SAFETY: no native display is passed; the display lives as long as the context
    // made on it (both are kept together by the caller).
    let display = unsafe { Display::with_device(device, None) }.map_err(|e| e.to_string())?;
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_alpha_size(8)
        .build();
    // SAFETY: a query of the display's configurations.
    let config = unsafe { display.find_configs(template) }
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no EGL configuration without a surface")?;
    let attributes = ContextAttributesBuilder::new()
        .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
        .build(None);
    // SAFETY: the configuration came from this display; no window is involved.
    let context = unsafe { display.create_context(&config, &attributes) }
        .map_err(|e| e.to_string())?
        .make_current_surfaceless()
        .map_err(|e| e.to_string())?;
    Ok((display, context))
}

impl GlPainter {
    /// A painter for a screen of `size` pixels at `pixels_per_point`, on the first EGL
    /// device that gives an OpenGL 3.3 context and a framebuffer; `Err` says why there
    /// is none (what the last device tried lacked).
    pub fn new(size: [u32; 2], pixels_per_point: f32) -> Result<Self, String> {
        let mut why = String::from("no EGL device");
        for device in devices()? {
            match Self::on(&device, size, pixels_per_point) {
                Ok(painter) => return Ok(painter),
                Err(e) => why = e,
            }
        }
        Err(why)
    }

    /// A painter on `device`.
    #[allow(unsafe_code)]
    fn on(device: &Device, size: [u32; 2], pixels_per_point: f32) -> Result<Self, String> {
        let (display, context) = context(device)?;
        // SAFETY: the context is current on this thread; the loader returns the
        // display's own entry points for it.
        let gl = Arc::new(unsafe {
            glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
        });
        // SAFETY: plain OpenGL 3.3 calls on the current context: a colour renderbuffer
        // of the screen's size attached to a new framebuffer, bound for every draw that
        // follows (egui's painter draws into what is bound). On an error the context,
        // dropped, takes them with it.
        let (framebuffer, renderbuffer, adapter) = unsafe {
            let adapter = gl.get_parameter_string(glow::RENDERER);
            let renderbuffer = gl.create_renderbuffer()?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(renderbuffer));
            gl.renderbuffer_storage(
                glow::RENDERBUFFER,
                glow::RGBA8,
                size[0] as i32,
                size[1] as i32,
            );
            let framebuffer = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::RENDERBUFFER,
                Some(renderbuffer),
            );
            if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
                return Err(format!(
                    "the offscreen framebuffer on {adapter} is incomplete"
                ));
            }
            (framebuffer, renderbuffer, adapter)
        };
        // As the window's (`workbench::native_options`): no dithering.
        let dithering = crate::workbench::native_options("").dithering;
        let painter = egui_glow::Painter::new(Arc::clone(&gl), "", None, dithering)
            .map_err(|e| e.to_string())?;
        let software = crate::workbench::is_software(&adapter);
        Ok(Self {
            painter,
            gl,
            _context: context,
            framebuffer,
            renderbuffer,
            size,
            pixels_per_point,
            adapter,
            software,
        })
    }

    /// Paints one frame: the screen cleared to `clear` (normalised, gamma), the texture
    /// changes, then the meshes; waits until OpenGL is done.
    #[allow(unsafe_code)]
    pub fn paint(
        &mut self,
        textures: &mut egui::TexturesDelta,
        primitives: &[egui::ClippedPrimitive],
        clear: [f32; 4],
    ) -> Result<(), String> {
        self.painter.clear(self.size, clear);
        self.painter.paint_and_update_textures(
            self.size,
            self.pixels_per_point,
            primitives,
            textures,
        );
        textures.clear();
        // SAFETY: waits for the current context's commands; no memory is touched.
        unsafe { self.gl.finish() };
        Ok(())
    }
}

impl Drop for GlPainter {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        self.painter.destroy();
        // SAFETY: the framebuffer and renderbuffer were made on this context, which is
        // still current; nothing uses them after this.
        unsafe {
            self.gl.delete_framebuffer(self.framebuffer);
            self.gl.delete_renderbuffer(self.renderbuffer);
        }
    }
}
