//! How long work has left, said one way everywhere a progress bar shows (a render being
//! exported, a preload, a project loading): the share done and the time left, estimated
//! from the time so far; [`bar_with_cancel`] draws it with its Cancel button.

use std::time::Duration;

/// The time left for work `fraction` (0–1) done in `elapsed`, assuming it goes on at the
/// same pace; `None` until there is enough to estimate from (under 1 % done, or under a
/// tenth of a second gone).
pub fn time_left(fraction: f64, elapsed: Duration) -> Option<Duration> {
    if !(0.01..=1.0).contains(&fraction) || elapsed < Duration::from_millis(100) {
        return None;
    }
    let left = elapsed.as_secs_f64() * (1.0 - fraction) / fraction;
    Duration::try_from_secs_f64(left).ok()
}

/// A duration as a person reads it: `0.4 s`, `12 s`, `3 min 05 s`, `1 h 02 min`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 60.0 {
        format!("{s:.0} s")
    } else if s < 3600.0 {
        let whole = s.round() as u64;
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        let minutes = (s / 60.0).round() as u64;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    }
}

/// `42 % · 3.1 s left` (or `42 % · estimating…` before there is an estimate).
pub fn progress_text(fraction: f64, elapsed: Duration) -> String {
    let percent = (fraction.clamp(0.0, 1.0) * 100.0).floor();
    match time_left(fraction, elapsed) {
        Some(left) => format!("{percent:.0} % · {} left", duration_text(left)),
        None => format!("{percent:.0} % · estimating…"),
    }
}

/// A progress bar for work under way (`fraction` done in `elapsed`), saying the share and
/// the time left, `hover` on hover, with a button `cancel` beside it (disabled once
/// `cancelling`); true when the button was clicked.
pub fn bar_with_cancel(
    ui: &mut egui::Ui,
    fraction: f64,
    elapsed: Duration,
    hover: &str,
    cancel: &str,
    cancelling: bool,
) -> bool {
    ui.add(
        egui::ProgressBar::new(fraction.clamp(0.0, 1.0) as f32)
            .desired_width(220.0)
            .text(progress_text(fraction, elapsed)),
    )
    .on_hover_text(hover);
    ui.add_enabled(!cancelling, egui::Button::new(cancel))
        .on_hover_text(format!("Stop: {hover}"))
        .clicked()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_follows_the_pace_so_far() {
        let left = time_left(0.25, Duration::from_secs(3)).unwrap();
        assert!((left.as_secs_f64() - 9.0).abs() < 1e-9);
        assert_eq!(time_left(1.0, Duration::from_secs(3)), Some(Duration::ZERO));
        assert_eq!(time_left(0.005, Duration::from_secs(3)), None);
        assert_eq!(time_left(0.5, Duration::from_millis(50)), None);
        assert_eq!(time_left(f64::NAN, Duration::from_secs(1)), None);
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(duration_text(Duration::from_millis(400)), "0.4 s");
        assert_eq!(duration_text(Duration::from_secs(12)), "12 s");
        assert_eq!(duration_text(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(duration_text(Duration::from_secs(3720)), "1 h 02 min");
        assert_eq!(
            progress_text(0.5, Duration::from_secs(4)),
            "50 % · 4.0 s left"
        );
        assert_eq!(
            progress_text(0.0, Duration::from_secs(4)),
            "0 % · estimating…"
        );
    }
}
