//! Painting for `bench ui`: egui's own wgpu renderer (`egui_wgpu::Renderer`, the one
//! eframe paints a wgpu window with) drawing a frame's tessellated meshes into an
//! offscreen texture of the screen's size, headless (no window, no surface; a software
//! adapter such as llvmpipe is used where there is no GPU). Each paint uploads the
//! frame's texture changes and buffers, records the render pass, submits it and waits
//! for the device to finish, so its time is the time the frame really took to draw.

use eframe::egui_wgpu::{self, wgpu};
use std::time::Duration;

/// How long to wait for the device to finish a frame before giving up on it.
const WAIT: Duration = Duration::from_secs(10);

/// egui's renderer with its device and an offscreen target.
pub struct Painter {
    state: egui_wgpu::RenderState,
    target: wgpu::TextureView,
    screen: egui_wgpu::ScreenDescriptor,
    /// The adapter, as people name it: "llvmpipe (LLVM 19.1.7, 256 bits), Vulkan, a CPU".
    pub adapter: String,
    /// Whether the adapter rasterises on the CPU.
    pub software: bool,
}

/// Prefers a real GPU (as a window would get), then any other device, then a CPU
/// (software) adapter; Vulkan, Metal and DirectX 12 before OpenGL.
fn pick(adapters: &[wgpu::Adapter]) -> Result<wgpu::Adapter, String> {
    let rank = |a: &wgpu::Adapter| {
        let info = a.get_info();
        let device = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu | wgpu::DeviceType::Other => 2,
            wgpu::DeviceType::Cpu => 3,
        };
        let backend = match info.backend {
            wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
            wgpu::Backend::Gl => 1,
            wgpu::Backend::BrowserWebGpu | wgpu::Backend::Noop => 2,
        };
        (device, backend)
    };
    adapters
        .iter()
        .filter(|a| a.get_info().backend != wgpu::Backend::Noop)
        .min_by_key(|a| rank(a))
        .cloned()
        .ok_or_else(|| "no wgpu adapter (no GPU and no software rasteriser)".to_string())
}

impl Painter {
    /// The renderer on the best adapter there is, painting `size` pixels; an error
    /// saying why when there is no adapter at all.
    pub fn new(size: [u32; 2], pixels_per_point: f32) -> Result<Self, String> {
        let mut setup = egui_wgpu::WgpuSetupCreateNew::without_display_handle();
        setup
            .instance_descriptor
            .backends
            .remove(wgpu::Backends::BROWSER_WEBGPU);
        setup.native_adapter_selector =
            Some(std::sync::Arc::new(|adapters, _surface| pick(adapters)));
        let setup = egui_wgpu::WgpuSetup::CreateNew(setup);
        let instance = pollster::block_on(setup.new_instance());
        let state = pollster::block_on(egui_wgpu::RenderState::create(
            &egui_wgpu::WgpuConfiguration {
                wgpu_setup: setup,
                ..Default::default()
            },
            &instance,
            None,
            // As the window's (`workbench::native_options`): no dithering.
            egui_wgpu::RendererOptions {
                dithering: crate::workbench::native_options("").dithering,
                ..egui_wgpu::RendererOptions::default()
            },
        ))
        .map_err(|e| e.to_string())?;
        let info = state.adapter.get_info();
        let software = info.device_type == wgpu::DeviceType::Cpu;
        let adapter = format!(
            "{} ({:?}{})",
            info.name,
            info.backend,
            if software {
                ", software: rasterised on the CPU"
            } else {
                ""
            }
        );
        let texture = state.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("bench ui frame"),
            size: wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: state.target_format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let target = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self {
            state,
            target,
            screen: egui_wgpu::ScreenDescriptor {
                size_in_pixels: size,
                pixels_per_point,
            },
            adapter,
            software,
        })
    }

    /// Paints one frame: the texture changes, then the screen cleared to `clear`
    /// (normalised, gamma) and the meshes painted over it; waits until the device is done.
    pub fn paint(
        &mut self,
        textures: &mut egui::TexturesDelta,
        primitives: &[egui::ClippedPrimitive],
        clear: [f32; 4],
    ) -> Result<(), String> {
        let state = &self.state;
        let mut renderer = state.renderer.write();
        #[allow(clippy::iter_over_hash_type)] // one texture's deltas stay in order
        for (id, images) in &textures.set {
            for image in images {
                renderer.update_texture(&state.device, &state.queue, *id, image);
            }
        }
        let mut encoder = state
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench ui frame"),
            });
        let user = renderer.update_buffers(
            &state.device,
            &state.queue,
            &mut encoder,
            primitives,
            &self.screen,
        );
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("bench ui frame"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &self.target,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color {
                                r: f64::from(clear[0]),
                                g: f64::from(clear[1]),
                                b: f64::from(clear[2]),
                                a: f64::from(clear[3]),
                            }),
                            store: wgpu::StoreOp::Store,
                        },
                        depth_slice: None,
                    })],
                    ..Default::default()
                })
                .forget_lifetime();
            renderer.render(&mut pass, primitives, &self.screen);
        }
        state
            .queue
            .submit(user.into_iter().chain(std::iter::once(encoder.finish())));
        #[allow(clippy::iter_over_hash_type)] // freed in any order
        for id in &textures.free {
            renderer.free_texture(id);
        }
        textures.clear();
        state
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: Some(WAIT),
            })
            .map(|_| ())
            .map_err(|e| format!("the device did not finish a frame: {e}"))
    }
}
