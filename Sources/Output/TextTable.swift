/// A table for people: a header of titles, columns two spaces apart, numbers aligned to the right.
///
/// When the lines would be wider than the limit, text columns give way, widest first, their values cut with `…`
/// down to 8 columns or their title's width. When that is not enough, the columns are split instead into blocks
/// printed one below the other, each repeating the first column so that its rows can be told apart.
struct TextTable {
    private let titles: [String]
    private let cells: [[String]]
    private let columns: [Column]

    init(_ table: Table, _ values: ValueText) {
        columns = table.columns
        titles = table.columns.map(\.title)
        cells = table.rows.map { row in zip(row, table.columns).map { values.people($0, $1.kind) } }
    }

    static let gap = 2
    /// The narrowest a text column is cut to, unless its title is wider.
    static let narrowest = 8

    func lines(width limit: Int?) -> [String] {
        guard !cells.isEmpty else { return ["(none)"] }
        let natural = titles.indices.map { index in
            cells.reduce(TerminalText.width(titles[index])) { max($0, TerminalText.width($1[index])) }
        }
        let all = Array(natural.indices)
        guard let limit, total(natural, all) > limit else { return lines(of: all, widths: natural) }
        let narrowed = narrowed(natural, to: limit)
        if total(narrowed, all) <= limit { return lines(of: all, widths: narrowed) }
        // Blocks show the values whole, unless one alone is wider than a block can be.
        var widths = natural
        for index in all where columns[index].kind == .text {
            widths[index] = min(widths[index], max(limit - (index == 0 ? 0 : widths[0] + Self.gap), narrowed[index]))
        }
        return blocks(widths, limit: limit).enumerated().flatMap { number, block in
            (number > 0 ? [""] : []) + lines(of: block, widths: widths)
        }
    }

    private func total(_ widths: [Int], _ indices: [Int]) -> Int {
        indices.reduce(0) { $0 + widths[$1] } + Self.gap * max(indices.count - 1, 0)
    }

    /// The widths with the widest text column narrowed by one, again and again, until the lines fit or every text
    /// column is as narrow as it goes.
    private func narrowed(_ natural: [Int], to limit: Int) -> [Int] {
        var widths = natural
        let floors = titles.indices.map { max(TerminalText.width(titles[$0]), min(natural[$0], Self.narrowest)) }
        while total(widths, Array(widths.indices)) > limit {
            let candidates = widths.indices.filter { columns[$0].kind == .text && widths[$0] > floors[$0] }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// The columns of each block: as many as fit after the first column, which every block repeats.
    private func blocks(_ widths: [Int], limit: Int) -> [[Int]] {
        var blocks: [[Int]] = []
        var block = [0]
        for index in widths.indices.dropFirst() {
            if block.count > 1, total(widths, block + [index]) > limit {
                blocks.append(block)
                block = [0]
            }
            block.append(index)
        }
        return blocks + [block]
    }

    private func lines(of block: [Int], widths: [Int]) -> [String] {
        func line(_ texts: [String]) -> String {
            let parts = block.enumerated().map { position, index in
                let text = TerminalText.truncated(texts[index], to: widths[index])
                let isLast = position == block.count - 1
                // No spaces at the end of a line.
                return isLast && !columns[index].isNumeric ? text
                    : TerminalText.padded(text, to: widths[index], right: columns[index].isNumeric)
            }
            return parts.joined(separator: String(repeating: " ", count: Self.gap))
        }
        return [line(titles)] + cells.map(line)
    }

    /// A document for people: its fields as `title  value` lines, then each section under its title, a blank line
    /// before each.
    static func document(_ document: Document, _ values: ValueText, width limit: Int?) -> [String] {
        let labelWidth = document.fields.map { TerminalText.width($0.column.title) }.max() ?? 0
        var lines = document.fields.map { field in
            var text = values.people(field.value, field.column.kind)
            if let limit { text = TerminalText.truncated(text, to: max(limit - labelWidth - gap, narrowest)) }
            return TerminalText.padded(field.column.title, to: labelWidth + gap, right: false) + text
        }
        for section in document.sections {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.title)
            lines += TextTable(section.table, values).lines(width: limit)
        }
        return lines
    }
}
