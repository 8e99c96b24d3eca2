//! The panels' colours, all of them, named by what they mean (`STOLEN`, `FAULT`,
//! [`area`], [`kind`], the meter's and the cache heat ramp's): a panel asks for "the
//! colour of a stolen voice", never for an RGB value, so one meaning keeps one colour
//! across panels and a restyle happens here only.
//!
//! Colours that follow egui's light or dark visuals (text, errors, warnings, the
//! selection) come from `ui.visuals()`; the mappings of a meaning onto them live here
//! too ([`trace_kind`]). A tidy test keeps `Color32` constructors out of every other
//! file of the crate.

use egui::{Color32, Visuals, ecolor::Hsva};
use engine_core::host::timeline::MarkerKind;
use engine_core::runtime::TraceKind;
use engine_core::tools::why::Verdict;
use engine_core::world::view::Area;
use engine_core::world::{ObjectId, ObjectKind};

const fn rgb([r, g, b]: [u8; 3]) -> Color32 {
    Color32::from_rgb(r, g, b)
}

const fn rgba([r, g, b]: [u8; 3], alpha: u8) -> Color32 {
    Color32::from_rgba_unmultiplied_const(r, g, b, alpha)
}

// ---- Lot view: the view on the ground, the areas, objects, stations, the listener.

/// Inside the full-volume area.
const FULL_VOLUME_RGB: [u8; 3] = [90, 200, 110];
/// Between the full-volume area and the silent edge.
const FADE_RGB: [u8; 3] = [235, 170, 60];
/// A stereo (never faded).
const STEREO_RGB: [u8; 3] = [185, 120, 235];
/// A TV, and the stations TVs and radios tune to.
const TV_RGB: [u8; 3] = [215, 210, 110];

/// The fill of the ground between the screen and the silent edge (the fade band).
pub const FADE_BAND_FILL: Color32 = rgba(FADE_RGB, 22);
/// The silent edge's outline on the ground.
pub const SILENT_EDGE: Color32 = rgba(FADE_RGB, 110);
/// The "silent edge" label.
pub const SILENT_EDGE_LABEL: Color32 = rgb(FADE_RGB);
/// The fill of the full-volume area on the ground.
pub const FULL_VOLUME_FILL: Color32 = rgba(FULL_VOLUME_RGB, 40);
/// The full-volume area's outline on the ground.
pub const FULL_VOLUME_EDGE: Color32 = rgba(FULL_VOLUME_RGB, 160);
/// A station: the lines to its receivers, its hub and its label's text.
pub const STATION: Color32 = rgb(TV_RGB);
/// Behind a station's label on the map.
pub const LABEL_BACKGROUND: Color32 = Color32::from_black_alpha(170);
/// The listener's cross.
pub const LISTENER: Color32 = rgb([100, 220, 220]);
/// A room of the lot: its walls and name.
pub const ROOM_EDGE: Color32 = rgba([200, 180, 130], 210);
/// Any other room: its walls only.
pub const ROOM_FILL: Color32 = Color32::TRANSPARENT;
/// The room the active character is in (its ambience reverb follows it).
pub const ACTIVE_ROOM_FILL: Color32 = rgba([200, 180, 130], 36);
/// A female person's glyph (gender field 1).
pub const PERSON_FEMALE: Color32 = rgb([235, 120, 170]);
/// A child's glyph (gender field 2).
pub const PERSON_CHILD: Color32 = rgb([120, 210, 130]);
/// The dark parts of a glyph: a TV's screen, a radio's speaker.
pub const GLYPH_SHADE: Color32 = Color32::from_black_alpha(140);
/// A stereo's speakers.
pub const GLYPH_SPEAKERS: Color32 = Color32::from_black_alpha(150);
/// The lines between a piano's keys.
pub const GLYPH_KEYS: Color32 = Color32::from_black_alpha(160);

/// The outline of a glyph, `alpha` 0–1 (objects on another floor are faint).
pub fn glyph_outline(alpha: f32) -> Color32 {
    Color32::from_black_alpha((200.0 * alpha) as u8)
}

/// Where an object is in the view: its ring and its volume and pan text.
pub fn area(area: Area) -> Color32 {
    match area {
        Area::Inside => rgb(FULL_VOLUME_RGB),
        Area::Fading => rgb(FADE_RGB),
        Area::Silent => rgb([150, 150, 150]),
        Area::Exempt => rgb(STEREO_RGB),
    }
}

/// An object's glyph, by kind.
pub fn kind(kind: ObjectKind) -> Color32 {
    match kind {
        ObjectKind::Person => rgb([90, 160, 230]),
        ObjectKind::Baby => rgb([235, 170, 205]),
        ObjectKind::Tv => rgb(TV_RGB),
        ObjectKind::Radio => rgb([235, 150, 70]),
        ObjectKind::Stereo => rgb(STEREO_RGB),
        ObjectKind::Piano => rgb([175, 130, 95]),
        ObjectKind::Generic => rgb([160, 160, 160]),
    }
}

/// A stable colour for an object's volume and pan curves.
pub fn object(id: ObjectId) -> Color32 {
    const PALETTE: [Color32; 8] = [
        rgb([90, 170, 255]),
        rgb([255, 150, 80]),
        rgb([120, 220, 120]),
        rgb([240, 110, 160]),
        rgb([200, 170, 255]),
        rgb([240, 220, 90]),
        rgb([100, 220, 220]),
        rgb([220, 130, 110]),
    ];
    PALETTE[id.unsigned_abs() as usize % PALETTE.len()]
}

// ---- Voices: how a voice left its slot, and the tracks' lanes.

/// A voice stolen by a higher-priority track.
pub const STOLEN: Color32 = rgb([230, 40, 40]);
/// A voice whose thread faulted.
pub const FAULT: Color32 = rgb([255, 140, 0]);
/// A voice quieted or killed.
pub const QUIETED: Color32 = Color32::from_gray(40);
/// A voice interrupted by its own track.
pub const INTERRUPTED: Color32 = rgb([230, 200, 40]);
/// A track's name on its lane (the lanes are light).
pub const LANE_LABEL: Color32 = Color32::BLACK;

/// A track's lane: a hue from its name, the same every run.
pub fn track(name: &str) -> Color32 {
    // FNV-1a: stable across runs and Rust versions.
    let mut hash: u32 = 0x811c_9dc5;
    for byte in name.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    let hue = (hash % 360) as f32 / 360.0;
    Hsva::new(hue, 0.45, 0.85, 1.0).into()
}

// ---- Mixer: the peak meter's segments.

/// A meter below −12 dB.
pub const METER_SAFE: Color32 = rgb([70, 190, 90]);
/// A meter from −12 to −3 dB.
pub const METER_LOUD: Color32 = rgb([220, 200, 60]);
/// A meter above −3 dB, close to clipping.
pub const METER_HOT: Color32 = rgb([230, 70, 60]);

// ---- Resource cache: the heat ramp and the history lines.

/// A cell pinned or larger than the budget: its edge.
pub const PINNED_EDGE: Color32 = Color32::WHITE;
/// Hits over time.
pub const CACHE_HITS: Color32 = rgb([0x50, 0xb0, 0x50]);
/// Compulsory misses over time.
pub const CACHE_COMPULSORY: Color32 = rgb([0x50, 0x90, 0xe0]);
/// Capacity misses over time.
pub const CACHE_CAPACITY: Color32 = rgb([0xe0, 0xa0, 0x30]);
/// Conflict misses over time.
pub const CACHE_CONFLICT: Color32 = rgb([0xd0, 0x50, 0xd0]);
/// Evictions over time.
pub const CACHE_EVICTIONS: Color32 = rgb([0xe0, 0x40, 0x40]);

/// The heat ramp: recency `t` (0 = used last, 1 = used longest ago), hot to cold.
pub fn heat(t: f32) -> Color32 {
    let hot = rgb([0xf0, 0x5a, 0x28]);
    let warm = rgb([0xe8, 0xc0, 0x40]);
    let cold = rgb([0x2c, 0x4a, 0x8c]);
    if t < 0.5 {
        hot.lerp_to_gamma(warm, t * 2.0)
    } else {
        warm.lerp_to_gamma(cold, (t - 0.5) * 2.0)
    }
}

/// Text on a cell of heat `t`: dark on the warm end, light on the cold one.
pub fn heat_label(t: f32) -> Color32 {
    if t < 0.6 {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

// ---- Hit lists.

/// The "changed on disk, not saved" warning.
pub const CHANGED_ON_DISK: Color32 = rgb([0xe0, 0x9a, 0x20]);
/// The bars of a pick simulation.
pub const SIMULATION_BARS: Color32 = rgb([0x3a, 0x78, 0xb8]);

// ---- Traces.

/// A trace record's text, by kind.
pub fn trace_kind(visuals: &Visuals, kind: TraceKind) -> Color32 {
    match kind {
        TraceKind::Error => visuals.error_fg_color,
        TraceKind::Voice => visuals.warn_fg_color,
        TraceKind::Event | TraceKind::Track => visuals.strong_text_color(),
        TraceKind::Sample | TraceKind::Pick => visuals.hyperlink_color,
        TraceKind::Hook | TraceKind::Print | TraceKind::Reload | TraceKind::World => {
            visuals.weak_text_color()
        }
    }
}

// ---- Why: verdicts, the track that decided one, a silenced note.

/// A trigger that got a voice (or joined a copy playing).
pub const PLAYED: Color32 = rgb(FULL_VOLUME_RGB);
/// Behind the occupant a steal or refusal turned on (the lowest priority playing).
pub const DECIDING_OCCUPANT: Color32 = rgba([230, 40, 40], 60);

/// A verdict's words: played, stolen, refused, handed on.
pub fn verdict(visuals: &Visuals, verdict: &Verdict) -> Color32 {
    match verdict {
        Verdict::Started { .. }
        | Verdict::Interrupted { .. }
        | Verdict::Joined { .. }
        | Verdict::AlreadyPlaying { .. } => PLAYED,
        Verdict::Stole { .. } => STOLEN,
        Verdict::Refused { .. } | Verdict::NoTrack | Verdict::UnknownEvent => {
            visuals.error_fg_color
        }
        Verdict::World => visuals.weak_text_color(),
    }
}

/// "Not heard", and the line that says which factor silenced a note.
pub fn silenced(visuals: &Visuals) -> Color32 {
    visuals.warn_fg_color
}

// ---- The track debugger (source view, track threads).

/// A breakpoint's dot in the source view's gutter.
pub const BREAKPOINT: Color32 = rgb([220, 60, 60]);
/// The marker of the line the engine is paused at, and the word "paused".
pub const PAUSED_MARK: Color32 = rgb([250, 200, 60]);
/// Behind the line the engine is paused at.
pub const PAUSED_LINE: Color32 = rgba([250, 200, 60], 60);
/// Behind a register the debugger's last step changed (Track threads).
pub const REGISTER_CHANGED: Color32 = rgba([250, 200, 60], 90);

// ---- Capture view: the timeline.

/// A marker on the capture's timeline: a steal, a refusal or a fault.
pub fn marker(visuals: &Visuals, kind: MarkerKind) -> Color32 {
    match kind {
        MarkerKind::Steal => STOLEN,
        MarkerKind::Refusal => visuals.error_fg_color,
        MarkerKind::Fault => FAULT,
    }
}

/// The timeline's ground, and the line at the time shown.
pub fn timeline(visuals: &Visuals) -> (Color32, Color32) {
    (visuals.extreme_bg_color, visuals.strong_text_color())
}

/// A field the user has edited and not saved (Properties panel, A/B snapshots).
pub const EDITED: Color32 = rgb([0x4a, 0xa8, 0xe8]);

/// A muted target's button, and the monitoring banner while something is muted.
pub const MUTED: Color32 = rgb([0xd0, 0x5a, 0x3c]);

/// A soloed target's button.
pub const SOLOED: Color32 = rgb([0xe8, 0xc4, 0x30]);

/// Text on a lit toggle (a muted or soloed target, a lit clip light).
pub const LIT_TEXT: Color32 = Color32::BLACK;

/// The clip light of a meter that went over full scale.
pub const CLIP_LIGHT: Color32 = rgb([0xe8, 0x30, 0x30]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn track_colours_are_stable() {
        assert_eq!(track("music_a"), track("music_a"));
        assert_ne!(track("music_a"), track("vox_greet"));
    }

    #[test]
    fn area_colours_match_the_view_on_the_ground() {
        // The ring of an object fading and the band it is in are one colour.
        assert_eq!(area(Area::Fading), SILENT_EDGE_LABEL);
        assert_eq!(kind(ObjectKind::Tv), STATION);
    }
}
