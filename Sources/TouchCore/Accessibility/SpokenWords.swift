/// What the screen reader says, word for word: the words it adds to the UI's own text ("button",
/// "page 3 of 5") come from a table per language, and an element is read as VoiceOver reads it
/// — "selected" first, then its label, its value and its traits, joined by ", ", with its hint
/// apart, after a pause (docs/accessibility.md "What is said").
///
/// Adding a language: a `SpokenWords` value in `SpokenWords.tables` under its language tag
/// (every word filled in; SpokenWordsTests checks that each table has them all and that a
/// region tag such as "en-GB" falls back to its language's table).
public struct SpokenWords: Sendable, Equatable {
    public var language: String
    /// The word for each trait that is spoken (traits not listed are silent: staticText,
    /// summary, updatesFrequently; `selected` is said first, the others after the value).
    public var traits: [AccessibilityTrait: String]
    /// "page N of M" as the text before N, between N and M, and after M.
    public var pageWords: (String, String, String)
    /// An adjustable element without a hint of its own gets this one.
    public var adjustableHint: String
    /// Said when headphones turn the reader on or off (`screenReader: "headphones"`), as
    /// VoiceOver says "VoiceOver on" / "VoiceOver off".
    public var readerOn: String
    public var readerOff: String
    /// Between the parts of one utterance.
    public var separator = ", "

    public static func == (a: SpokenWords, b: SpokenWords) -> Bool {
        a.language == b.language && a.traits == b.traits && a.adjustableHint == b.adjustableHint && a.page(3, 5) == b.page(3, 5)
            && a.readerOn == b.readerOn && a.readerOff == b.readerOff
    }

    /// "page 3 of 5".
    public func page(_ n: Int, _ m: Int) -> String { pageWords.0 + String(n) + pageWords.1 + String(m) + pageWords.2 }

    /// VoiceOver's English words (as it says them on iOS: "dimmed" for notEnabled, "heading"
    /// for header, "adjustable" with its standard hint).
    public static let english = SpokenWords(
        language: "en",
        traits: [.button: "button", .link: "link", .header: "heading", .image: "image", .adjustable: "adjustable",
                 .selected: "selected", .notEnabled: "dimmed", .key: "key", .searchField: "search field"],
        pageWords: ("page ", " of ", ""),
        adjustableHint: "Swipe up or down with one finger to adjust the value.",
        readerOn: "Screen reader on",
        readerOff: "Screen reader off")

    /// The tables, by language (the part of a tag before its first hyphen).
    public static let tables: [String: SpokenWords] = ["en": english]

    /// The table for a language tag ("de-AT" → "de"), else `fallback`'s, else English.
    public static func table(for tag: String?, fallback: String) -> SpokenWords {
        func lookup(_ t: String?) -> SpokenWords? {
            guard let t else { return nil }
            return tables[t] ?? tables[String(t.split(separator: "-").first ?? "")]
        }
        return lookup(tag) ?? lookup(fallback) ?? english
    }

    /// The order traits are said in after the value: the state ("dimmed") before the kind of
    /// element ("button"), as VoiceOver says "Pay, dimmed, button"; `selected` goes first of all.
    public static let spokenOrder: [AccessibilityTrait] = [.notEnabled, .button, .link, .searchField, .header, .image, .adjustable, .key]

    /// The words of a set of traits, in `spokenOrder` (`selected` excepted: `read` puts it
    /// first).
    public func words(_ t: AccessibilityTraits) -> [String] {
        SpokenWords.spokenOrder.filter(t.has).compactMap { traits[$0] }
    }

    /// An element as VoiceOver reads it: the text ("Coffee, large, button") and the hint said
    /// after it (nil: none).
    public func read(label: String?, value: String?, hint: String?, traits t: AccessibilityTraits) -> (text: String, hint: String?) {
        var parts: [String] = []
        if t.has(.selected), let w = traits[.selected] { parts.append(w) }
        if let label, !label.isEmpty { parts.append(label) }
        if let value, !value.isEmpty { parts.append(value) }
        parts += words(t)
        let h = hint.flatMap { $0.isEmpty ? nil : $0 } ?? (t.has(.adjustable) ? adjustableHint : nil)
        return (parts.joined(separator: separator), h)
    }

    /// A secure element as anyone but its window's owner hears it: its traits only ("key"),
    /// never its label, value or hint; nil when it has no spoken trait (then they hear nothing).
    public func readSecure(traits t: AccessibilityTraits) -> String? {
        let w = words(t)
        return w.isEmpty ? nil : w.joined(separator: separator)
    }
}
