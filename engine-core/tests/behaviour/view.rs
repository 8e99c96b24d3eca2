//! The lot and the view: one test per volume/pan rule (pan follows x, full volume inside
//! the area, fading outside, silent at the fade end, zoom, floors, stereos, stations), the
//! lot file's round trip and error reporting, and `[View]` settings from a `world.ini`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::toolchain::diag::Severity;
use engine_core::world::lot::Lot;
use engine_core::world::settings::WorldIni;
use engine_core::world::view::{
    Area, Camera, FadeCurve, Placement, ViewSettings, combine, place, station_mix,
};
use engine_core::world::{ObjectKind, World, WorldObject, field};
use std::path::{Path, PathBuf};

fn camera() -> Camera {
    Camera {
        centre: [20.0, 20.0],
        ..Camera::default()
    }
}

/// An object of `kind` placed at screen point `screen` (pixels).
fn object_at(
    kind: ObjectKind,
    settings: &ViewSettings,
    camera: &Camera,
    screen: [f32; 2],
) -> WorldObject {
    let [x, y] = settings.to_tiles(camera, screen);
    WorldObject::new(1, "thing", kind).at(x, y)
}

fn placed(kind: ObjectKind, screen: [f32; 2]) -> Placement {
    let settings = ViewSettings::default();
    let camera = camera();
    place(
        &object_at(kind, &settings, &camera, screen),
        &camera,
        &settings,
    )
}

#[test]
fn pan_follows_horizontal_position() {
    let cases = [
        (0.0, 0),
        (256.0, 256),
        (512.0, 512),
        (768.0, 768),
        (1024.0, 1024),
        (-400.0, 0),
        (1500.0, 1024),
    ];
    for (x, pan) in cases {
        let p = placed(ObjectKind::Stereo, [x, 300.0]);
        assert_eq!(p.pan, pan, "x = {x}");
        assert!((p.screen[0] - x).abs() < 0.01);
    }
    // The vertical position does not pan.
    assert_eq!(
        placed(ObjectKind::Tv, [700.0, 100.0]).pan,
        placed(ObjectKind::Tv, [700.0, 600.0]).pan
    );
    // Rotating the view half a turn swaps left and right.
    let settings = ViewSettings::default();
    let cam = camera();
    let tv = object_at(ObjectKind::Tv, &settings, &cam, [312.0, 384.0]);
    let turned = Camera { rotation: 2, ..cam };
    assert_eq!(place(&tv, &cam, &settings).pan, 312);
    assert_eq!(place(&tv, &turned, &settings).pan, 712);
}

#[test]
fn full_volume_inside_the_area() {
    // The default area is 60 % of the screen: x 204.8–819.2, y 153.6–614.4.
    for screen in [
        [512.0, 384.0],
        [210.0, 160.0],
        [815.0, 610.0],
        [512.0, 600.0],
    ] {
        let p = placed(ObjectKind::Tv, screen);
        assert_eq!(p.volume, 1024, "{screen:?}");
        assert_eq!(p.why.area, Area::Inside);
        assert_eq!(p.why.fade, 1.0);
    }
}

#[test]
fn fading_outside_the_area_and_silent_at_the_fade_end() {
    let settings = ViewSettings::default();
    // The area's right edge is at 819.2; silence at the screen edge + 256 = 1280.
    let mut last = 1024;
    for x in [830.0, 900.0, 1024.0, 1100.0, 1200.0, 1270.0] {
        let p = placed(ObjectKind::Tv, [x, 384.0]);
        assert_eq!(p.why.area, Area::Fading, "x = {x}");
        assert!(
            p.volume < last && p.volume > 0,
            "x = {x}: {} after {last}",
            p.volume
        );
        assert!(p.why.band > 0.0 && p.why.band < 1.0);
        last = p.volume;
    }
    for screen in [
        [1280.5, 384.0],
        [5000.0, 384.0],
        [512.0, -260.0],
        [-300.0, 384.0],
    ] {
        let p = placed(ObjectKind::Tv, screen);
        assert_eq!(p.volume, 0, "{screen:?}");
        assert_eq!(p.why.area, Area::Silent);
        assert_eq!(p.weight, 0.0);
    }
    // Half way through the band the curve decides: smooth and linear give ½, equal power √½.
    let half = 819.2 + (1280.0 - 819.2) / 2.0;
    assert_eq!(placed(ObjectKind::Tv, [half, 384.0]).volume, 512);
    let equal_power = ViewSettings {
        fade_curve: FadeCurve::EqualPower,
        ..settings
    };
    let cam = camera();
    let tv = object_at(ObjectKind::Tv, &settings, &cam, [half, 384.0]);
    assert_eq!(place(&tv, &cam, &equal_power).volume, 724);
}

#[test]
fn zooming_out_attenuates() {
    let settings = ViewSettings::default();
    let tv = WorldObject::new(1, "tv", ObjectKind::Tv).at(20.0, 20.0);
    let volumes: Vec<i32> = (1..=3)
        .map(|zoom| place(&tv, &Camera { zoom, ..camera() }, &settings).volume)
        .collect();
    assert_eq!(volumes, [1024, 717, 512]);
    let far = place(
        &tv,
        &Camera {
            zoom: 3,
            ..camera()
        },
        &settings,
    );
    assert_eq!(far.why.zoom, 0.5);
    assert_eq!(far.why.area, Area::Inside);
    // Zooming out brings a far object nearer the centre on screen.
    let side = WorldObject::new(2, "tv", ObjectKind::Tv).at(26.0, 14.0);
    let near = place(&side, &camera(), &settings);
    let far = place(
        &side,
        &Camera {
            zoom: 3,
            ..camera()
        },
        &settings,
    );
    assert_eq!(near.why.area, Area::Silent);
    assert_eq!(far.why.area, Area::Inside);
}

#[test]
fn a_stereo_stays_audible_far_off_screen() {
    let settings = ViewSettings::default();
    let cam = camera();
    let stereo = WorldObject::new(1, "stereo", ObjectKind::Stereo).at(200.0, -150.0);
    let tv = WorldObject::new(2, "tv", ObjectKind::Tv).at(200.0, -150.0);
    let s = place(&stereo, &cam, &settings);
    assert_eq!(s.why.area, Area::Exempt);
    assert_eq!(s.volume, 1024);
    assert_eq!(s.pan, 1024);
    assert!(s.why.band >= 1.0);
    assert!(s.weight > 0.0);
    assert_eq!(place(&tv, &cam, &settings).volume, 0);
    // Still attenuated by zoom.
    assert_eq!(
        place(&stereo, &Camera { zoom: 3, ..cam }, &settings).volume,
        512
    );
}

#[test]
fn other_floors_are_quieter() {
    let settings = ViewSettings::default();
    let cam = Camera {
        level: 1,
        ..camera()
    };
    let at = |level| {
        let o = WorldObject::new(1, "radio", ObjectKind::Radio)
            .at(20.0, 20.0)
            .on_level(level);
        place(&o, &cam, &settings)
    };
    assert_eq!(at(1).volume, 1024);
    assert_eq!(at(0).volume, 512);
    assert_eq!(at(2).volume, 256);
    assert_eq!(at(2).why.floor, 0.25);
}

fn two_tvs(settings: &ViewSettings, cam: &Camera, offset: f32) -> World {
    let mut world = World::default();
    for (id, x) in [(1, 512.0 - offset), (2, 512.0 + offset)] {
        let [tx, ty] = settings.to_tiles(cam, [x, 384.0]);
        world.insert(
            WorldObject::new(id, "tv", ObjectKind::Tv)
                .at(tx, ty)
                .tuned_to(28),
        );
    }
    world
}

#[test]
fn two_tvs_left_and_right_give_the_centre() {
    let settings = ViewSettings::default();
    let cam = camera();
    for offset in [100.0, 300.0, 450.0, 700.0] {
        let world = two_tvs(&settings, &cam, offset);
        let mix = station_mix(&world, 28, &cam, &settings);
        assert_eq!(mix.pan, 512, "offset {offset}");
        let one = place(world.get(1).unwrap(), &cam, &settings);
        assert_eq!(mix.volume, one.volume);
    }
    // Another station, or switched off, does not count.
    let mut world = two_tvs(&settings, &cam, 300.0);
    world.get_mut(2).unwrap().on = false;
    assert_eq!(station_mix(&world, 28, &cam, &settings).pan, 212);
    assert_eq!(station_mix(&world, 5, &cam, &settings).volume, 0);
}

#[test]
fn scrolling_right_moves_the_station_right() {
    let settings = ViewSettings::default();
    let start = camera();
    let world = two_tvs(&settings, &start, 450.0);
    let mut last = 512;
    let mut pans = Vec::new();
    for step in 0..=6 {
        let cam = start.scrolled(&settings, [step as f32 * 25.0, 0.0]);
        let mix = station_mix(&world, 28, &cam, &settings);
        pans.push(mix.pan);
        assert!(mix.pan >= last, "scrolled {} px: {pans:?}", step * 25);
        last = mix.pan;
    }
    assert!(last > 680, "{pans:?}");
    // At 150 px the left TV is off screen and fading; the right one has taken over.
    let cam = start.scrolled(&settings, [150.0, 0.0]);
    let left = place(world.get(1).unwrap(), &cam, &settings);
    let right = place(world.get(2).unwrap(), &cam, &settings);
    assert!(left.screen[0] < 0.0);
    assert_eq!(left.why.area, Area::Fading);
    assert!(left.weight < right.weight / 10.0, "{left:?} {right:?}");
    assert_eq!(right.pan, 812);
    let mix = combine([left, right]);
    assert_eq!(mix.pan, last);
    // Scrolling on, the right TV itself nears the centre and the pan follows it back.
    let cam = start.scrolled(&settings, [450.0, 0.0]);
    let mix = station_mix(&world, 28, &cam, &settings);
    assert!((505..=519).contains(&mix.pan), "{mix:?}");
    assert_eq!(mix.volume, 1024);
}

#[test]
fn combine_of_nothing_is_silent_and_centred() {
    let mix = combine(Vec::<Placement>::new());
    assert_eq!((mix.volume, mix.pan), (0, 512));
    let silent = placed(ObjectKind::Tv, [4000.0, 384.0]);
    assert_eq!(combine([silent]).volume, 0);
}

const DEMO: &str = r#"# demo lot
# (hand written)

hour 14.5                      # 0–24
mode live
camera 10 8 zoom 2 rotation 1  # centre in tiles
screen 1280 720
controlled 1
room 12
object 1 person "Bob Newbie" at 10 8 gender=male age=30 creativity=5
object 2 tv "Kitchen TV" at 14 6 station=28 on
object 3 stereo "Stereo" at 2.5 2 floor 1 on
object 4 person "Betty" at 3 4 gender=female 25=7
object 5 generic
"#;

#[test]
fn a_lot_parses_and_writes_back_the_same() {
    let (lot, diagnostics) = Lot::parse(DEMO, Path::new("demo.lot"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(lot.hour, 14.5);
    assert_eq!(lot.mode, "live");
    assert_eq!(lot.camera.centre, [10.0, 8.0]);
    assert_eq!((lot.camera.zoom, lot.camera.rotation), (2, 1));
    assert_eq!(lot.screen, Some([1280.0, 720.0]));
    assert_eq!(lot.camera(&ViewSettings::default()).screen, [1280.0, 720.0]);
    assert_eq!(lot.controlled, Some(1));
    assert_eq!(lot.controlled_object().unwrap().name, "Bob Newbie");
    assert_eq!(lot.room_size, 12.0);
    assert_eq!(lot.objects.len(), 5);
    assert_eq!(lot.objects.field(1, i32::from(field::AGE)), Some(30));
    assert_eq!(lot.objects.field(1, i32::from(field::CREATIVITY)), Some(5));
    assert_eq!(lot.objects.field(4, i32::from(field::GENDER)), Some(1));
    assert_eq!(lot.objects.field(4, 25), Some(7));
    let tv = lot.objects.get(2).unwrap();
    assert_eq!(
        (tv.kind, tv.station, tv.on),
        (ObjectKind::Tv, Some(28), true)
    );
    let stereo = lot.objects.get(3).unwrap();
    assert_eq!(
        (stereo.position, stereo.level, stereo.on),
        ([2.5, 2.0], 1, true)
    );
    assert_eq!(lot.objects.get(5).unwrap().name, "");
    assert_eq!(lot.header, [" demo lot", " (hand written)"]);

    let text = lot.to_text();
    assert!(
        text.contains(r#"object 1 person "Bob Newbie" at 10 8 gender=male creativity=5 age=30"#),
        "{text}"
    );
    assert!(
        text.contains(r#"object 2 tv "Kitchen TV" at 14 6 on station=28"#),
        "{text}"
    );
    assert!(text.contains("gender=female 25=7"), "{text}");
    let (again, diagnostics) = Lot::parse(&text, Path::new("demo.lot"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(again, lot);
    assert_eq!(again.to_text(), text);
}

#[test]
fn a_lot_without_screen_uses_the_settings_screen() {
    let (lot, diagnostics) = Lot::parse("camera 1 2\n", Path::new("a.lot"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(lot.screen, None);
    let settings = ViewSettings {
        screen: [800.0, 600.0],
        ..ViewSettings::default()
    };
    assert_eq!(lot.camera(&settings).screen, [800.0, 600.0]);
    assert!(!lot.to_text().contains("screen"));
}

#[test]
fn bad_lines_are_reported_and_skipped() {
    let text = "hour 30\n\
                mode disco\n\
                camera 1 2 zoom 7\n\
                object 1 person \"Ann\" at 1 2 gender=robot\n\
                object 2 toaster\n\
                object 3 tv \"TV\" at 4 5 station=28 on\n\
                object 3 radio\n\
                object 4 person \"Bo\" at x 1\n\
                object 5 person \"Cy\" smell=3\n\
                flavour 3\n\
                object 6 radio \"open\n\
                controlled 9\n";
    let file = Path::new("bad.lot");
    let (lot, diagnostics) = Lot::parse(text, file);
    let rendered: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    let expected = [
        "bad.lot:1:6: error:",
        "bad.lot:2:6: warning: unknown music mode `disco`",
        "bad.lot:3:17: error:",
        "bad.lot:4:37: error: `gender` must be male, female, child or a number",
        "bad.lot:5:10: error: unknown kind `toaster`",
        "bad.lot:7:8: error: object 3 is already on the lot",
        "bad.lot:8:25: error:",
        "bad.lot:9:22: error: unknown field `smell`",
        "bad.lot:10:1: error: unknown statement `flavour`",
        "bad.lot:11:16: error: this quote is never closed",
        "bad.lot:12:12: warning: the controlled character 9 is not on the lot",
    ];
    assert_eq!(rendered.len(), expected.len(), "{rendered:#?}");
    for (got, want) in rendered.iter().zip(expected) {
        assert!(got.starts_with(want), "{got}\n  should start with\n{want}");
    }
    // The rest still loads.
    assert_eq!(lot.hour, 12.0);
    assert_eq!(lot.mode, "disco");
    assert_eq!(lot.camera.zoom, 1);
    assert_eq!(lot.objects.len(), 1);
    assert_eq!(lot.objects.get(3).unwrap().station, Some(28));
    assert!(
        diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
            == 9
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hitbench-view-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_lot_saves_and_loads() {
    let dir = temp_dir("save");
    let path = dir.join("demo.lot");
    let (lot, _) = Lot::parse(DEMO, Path::new("demo.lot"));
    lot.save(&path).unwrap();
    let (back, diagnostics) = Lot::load(&path);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(back, lot);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["demo.lot"], "no temporary file is left");
    let (_, diagnostics) = Lot::load(&dir.join("missing.lot"));
    assert!(diagnostics[0].to_string().contains("cannot read the lot"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn view_settings_come_from_world_ini() {
    let base = temp_dir("ini-base");
    let plugin = temp_dir("ini-plugin");
    std::fs::write(
        base.join("world.ini"),
        "[View]\n\
         TileSize=100,50,25\n\
         FullVolumeArea=0.5\n\
         FadeDistance=far\n\
         FadeCurve=linear\n\
         ZoomGain=1,0.8\n\
         Loudness=11\n\
         [Lot]\n\
         File=lots\\demo.lot\n",
    )
    .unwrap();
    std::fs::write(
        plugin.join("world.ini"),
        "[view]\nFloorAboveGain = 0.1\nPanRange=2\n",
    )
    .unwrap();
    let (ini, diagnostics) = WorldIni::load(&[base.clone(), plugin.clone()]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let mut diagnostics = Vec::new();
    let settings = ViewSettings::from_ini(&ini, &mut diagnostics);
    let defaults = ViewSettings::default();
    assert_eq!(settings.tile_size, [100.0, 50.0, 25.0]);
    assert_eq!(settings.full_volume_area, [0.5, 0.5]);
    assert_eq!(settings.fade_curve, FadeCurve::Linear);
    assert_eq!(settings.floor_above_gain, 0.1);
    // Bad values keep their defaults.
    assert_eq!(settings.fade_distance, defaults.fade_distance);
    assert_eq!(settings.zoom_gain, defaults.zoom_gain);
    assert_eq!(settings.pan_range, defaults.pan_range);
    let rendered: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    let base_ini = base.join("world.ini").display().to_string();
    let plugin_ini = plugin.join("world.ini").display().to_string();
    let expected = [
        format!("{base_ini}:4:14: error: `FadeDistance` must be a number"),
        format!("{base_ini}:6:10: error: `ZoomGain` takes 3 numbers"),
        format!("{base_ini}:7:10: warning: unknown key `Loudness`"),
        format!("{plugin_ini}:3:10: error: `PanRange` must be between 0 and 1"),
    ];
    assert_eq!(rendered.len(), expected.len(), "{rendered:#?}");
    for (got, want) in rendered.iter().zip(&expected) {
        assert!(
            got.starts_with(want.as_str()),
            "{got}\n  should start with\n{want}"
        );
    }
    let mut diagnostics = Vec::new();
    let lot = Lot::file_in_settings(&ini, &mut diagnostics).unwrap();
    assert_eq!(lot, base.join("lots/demo.lot"));
    assert!(diagnostics.is_empty());
    let _ = std::fs::remove_dir_all(&base);
    let _ = std::fs::remove_dir_all(&plugin);
}
