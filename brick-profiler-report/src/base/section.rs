//! [`Section`]: one titled part of the HTML report, with a fragment-safe
//! anchor id.

/// One section of the report: an `id` (the anchor the table of contents
/// links to), a title (shown as its `<h2>`) and a trusted HTML body.
///
/// The body is inserted as is: escape any text in it yourself (`&`, `<`,
/// `>`, `"` and `'` as entities; control characters have no valid HTML
/// form). The title is escaped for you, and the id is reduced to ASCII
/// letters, digits, `-` and `_`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) body: String,
    /// The body is a complete `<section>` element that only needs the id.
    pub(crate) framed: bool,
}

impl Section {
    /// A section with anchor `id`, heading `title` and HTML `body_html`.
    ///
    /// ```
    /// let s = profiler_report::html::Section::new("roofline", "Roofline", "<p>…</p>");
    /// assert_eq!(s.id(), "roofline");
    /// ```
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        body_html: impl Into<String>,
    ) -> Self {
        Self {
            id: sanitize_id(&id.into()),
            title: title.into(),
            body: body_html.into(),
            framed: false,
        }
    }

    /// The anchor id (before de-duplication against other sections).
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The heading.
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }
}

/// `id` as a fragment-safe anchor: other characters become `-`.
fn sanitize_id(id: &str) -> String {
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if id.is_empty() {
        "section".to_owned()
    } else {
        id
    }
}
