//! Axes: [`LogAxis`] (whole decades, labelled `0.01`, `1`, `10k`, ...) and
//! [`LinearAxis`] (round steps of 1, 2 or 5 times a power of ten, between
//! round bounds).

/// A base-10 logarithmic axis spanning whole decades, mapped onto pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LogAxis {
    /// Exponent of the first decade.
    lo: i32,
    /// Exponent of the last decade (`> lo`).
    hi: i32,
    /// Pixel of `10^lo`.
    px_lo: f64,
    /// Pixel of `10^hi`.
    px_hi: f64,
}

impl LogAxis {
    /// The decades covering `[min, max]` (positive, finite; anything else
    /// falls back to `[1, 10]`), at least `min_decades` wide, mapped onto
    /// `px_lo..px_hi` (which may run backwards, as a y axis does).
    pub(crate) fn covering(min: f64, max: f64, min_decades: i32, px_lo: f64, px_hi: f64) -> Self {
        let ok = |v: f64| v.is_finite() && v > 0.0;
        let (min, max) = match (ok(min), ok(max)) {
            (true, true) => (min.min(max), min.max(max)),
            (true, false) => (min, min),
            (false, true) => (max, max),
            (false, false) => (1.0, 10.0),
        };
        // Exponents of f64 lie within about ±308: the casts cannot overflow.
        let mut lo = min.log10().floor() as i32;
        let mut hi = max.log10().ceil() as i32;
        while hi - lo < min_decades.max(1) {
            // Widen on both sides, upper first, so the data stays centred.
            hi += 1;
            if hi - lo < min_decades {
                lo -= 1;
            }
        }
        Self {
            lo,
            hi,
            px_lo,
            px_hi,
        }
    }

    /// The pixel of `v` (`v <= 0` or non-finite gives a non-finite pixel,
    /// which the SVG writer refuses).
    pub(crate) fn px(&self, v: f64) -> f64 {
        let t = (v.log10() - f64::from(self.lo)) / f64::from(self.hi - self.lo);
        self.px_lo + t * (self.px_hi - self.px_lo)
    }

    /// Smallest value on the axis.
    pub(crate) fn min(&self) -> f64 {
        10f64.powi(self.lo)
    }

    /// Largest value on the axis.
    pub(crate) fn max(&self) -> f64 {
        10f64.powi(self.hi)
    }

    /// Whether `v` lies on the axis.
    pub(crate) fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.min() * (1.0 - 1e-9) && v <= self.max() * (1.0 + 1e-9)
    }

    /// Major ticks: every decade, with its label.
    pub(crate) fn decades(&self) -> Vec<(f64, String)> {
        (self.lo..=self.hi)
            .map(|e| (10f64.powi(e), decade_label(e)))
            .collect()
    }

    /// Minor ticks: 2..9 times each decade inside the axis.
    pub(crate) fn minor(&self) -> Vec<f64> {
        (self.lo..self.hi)
            .flat_map(|e| (2..10).map(move |m| f64::from(m) * 10f64.powi(e)))
            .collect()
    }
}

/// The label of `10^e`: `0.001` ... `1`, `10`, `100`, then `1k`, `10k`,
/// `100k`, `1M`, ..., `100P`; beyond that `1e18`-style.
pub(crate) fn decade_label(e: i32) -> String {
    match e {
        -4..=-1 => format!("{:.*}", (-e) as usize, 10f64.powi(e)),
        0..=2 => 10u32.pow(e as u32).to_string(),
        3..=17 => {
            let prefix = ["k", "M", "G", "T", "P"][(e / 3 - 1) as usize];
            format!("{}{prefix}", 10u32.pow((e % 3) as u32))
        }
        _ => format!("1e{e}"),
    }
}

/// A linear axis between round bounds, with round tick steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinearAxis {
    step: f64,
    lo: f64,
    top: f64,
    px_lo: f64,
    px_hi: f64,
}

impl LinearAxis {
    /// An axis from 0 to at least `max` with about five ticks, mapped onto
    /// `px_lo..px_hi`. A non-finite or non-positive `max` gives `0..1`.
    pub(crate) fn to(max: f64, px_lo: f64, px_hi: f64) -> Self {
        Self::between(0.0, max, px_lo, px_hi)
    }

    /// An axis covering `[min, max]` between multiples of a round step
    /// (about five ticks), mapped onto `px_lo..px_hi` (which may run
    /// backwards, as a y axis does). Non-finite bounds read as 0; an empty
    /// span is widened around its value (by 1, or 10% of it).
    pub(crate) fn between(min: f64, max: f64, px_lo: f64, px_hi: f64) -> Self {
        let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
        let (mut min, mut max) = (finite(min).min(finite(max)), finite(min).max(finite(max)));
        if max - min <= f64::EPSILON * max.abs().max(1.0) {
            let pad = if min == 0.0 { 1.0 } else { min.abs() * 0.1 };
            // A span at 0 stays anchored there: 0..1, not -1..1.
            if min != 0.0 || max != 0.0 {
                min -= pad;
            }
            max += pad;
        }
        let raw = (max - min) / 5.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = match raw / magnitude {
            r if r <= 1.0 => 1.0,
            r if r <= 2.0 => 2.0,
            r if r <= 5.0 => 5.0,
            _ => 10.0,
        } * magnitude;
        Self {
            step,
            lo: (min / step).floor() * step,
            top: (max / step).ceil() * step,
            px_lo,
            px_hi,
        }
    }

    /// The pixel of `v`.
    pub(crate) fn px(&self, v: f64) -> f64 {
        self.px_lo + (v - self.lo) / (self.top - self.lo) * (self.px_hi - self.px_lo)
    }

    /// Smallest value on the axis.
    pub(crate) fn min(&self) -> f64 {
        self.lo
    }

    /// Largest value on the axis.
    pub(crate) fn max(&self) -> f64 {
        self.top
    }

    /// Ticks with labels carrying as many decimals as the step needs.
    pub(crate) fn ticks(&self) -> Vec<(f64, String)> {
        let n = ((self.top - self.lo) / self.step).round() as usize;
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        (0..=n)
            .map(|i| {
                // `+ 0.0` turns the `-0` of a tick at zero into `0`.
                let v = self.lo + self.step * i as f64 + 0.0;
                (v, format!("{v:.decimals$}"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_covers_whole_decades() {
        let a = LogAxis::covering(0.03, 450.0, 1, 0.0, 500.0);
        assert_eq!((a.min(), a.max()), (0.01, 1000.0));
        assert!((a.px(0.01) - 0.0).abs() < 1e-9 && (a.px(1000.0) - 500.0).abs() < 1e-9);
        assert!((a.px(1.0) - 2.0 / 5.0 * 500.0).abs() < 1e-9);
        let labels: Vec<String> = a.decades().into_iter().map(|d| d.1).collect();
        assert_eq!(labels, ["0.01", "0.1", "1", "10", "100", "1k"]);
        assert_eq!(a.minor().len(), 5 * 8);
        // A single value still gets a span; nonsense falls back to 1..10.
        let one = LogAxis::covering(5.0, 5.0, 2, 0.0, 1.0);
        assert_eq!((one.min(), one.max()), (1.0, 100.0));
        let bad = LogAxis::covering(f64::NAN, -1.0, 1, 0.0, 1.0);
        assert_eq!((bad.min(), bad.max()), (1.0, 10.0));
        assert!(!bad.px(0.0).is_finite());
    }

    #[test]
    fn decade_labels_use_si_prefixes() {
        assert_eq!(decade_label(-3), "0.001");
        assert_eq!(decade_label(4), "10k");
        assert_eq!(decade_label(6), "1M");
        assert_eq!(decade_label(14), "100T");
        assert_eq!(decade_label(-7), "1e-7");
        assert_eq!(decade_label(20), "1e20");
    }

    #[test]
    fn linear_axis_steps_are_round() {
        let a = LinearAxis::to(7.3, 0.0, 100.0);
        let ticks: Vec<String> = a.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["0", "2", "4", "6", "8"]);
        assert!((a.px(8.0) - 100.0).abs() < 1e-9);
        let small = LinearAxis::to(0.0123, 0.0, 1.0);
        assert_eq!(
            small.ticks().last().map(|t| t.1.clone()),
            Some("0.015".into())
        );
        assert_eq!(LinearAxis::to(f64::NAN, 0.0, 1.0).ticks().len(), 6);
    }

    #[test]
    fn linear_axis_spans_negative_and_offset_ranges() {
        let a = LinearAxis::between(-3.2, 7.9, 0.0, 100.0);
        let ticks: Vec<String> = a.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["-5", "0", "5", "10"]);
        assert!((a.px(-5.0) - 0.0).abs() < 1e-9 && (a.px(10.0) - 100.0).abs() < 1e-9);
        let loss = LinearAxis::between(0.78, 3.17, 200.0, 0.0);
        assert_eq!((loss.min(), loss.max()), (0.5, 3.5));
        assert!((loss.px(0.5) - 200.0).abs() < 1e-9, "y runs upwards");
        // A flat series still gets a span around its value.
        let flat = LinearAxis::between(5.0, 5.0, 0.0, 1.0);
        assert!(flat.min() < 5.0 && flat.max() > 5.0);
        assert_eq!(LinearAxis::between(0.0, 0.0, 0.0, 1.0).min(), 0.0);
        let bad = LinearAxis::between(f64::NAN, f64::INFINITY, 0.0, 1.0);
        assert!(bad.ticks().iter().all(|t| t.0.is_finite()));
    }
}
