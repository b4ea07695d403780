@testable import Postgres
import Testing

/// The bytes of COPY rows are a value: a copy keeps its bytes whatever is written to the other, past any growth.
struct CopyBytesTests {
    private func array(_ bytes: CopyBytes) -> [UInt8] { bytes.withUnsafeBufferPointer { Array($0) } }

    @Test func aCopyKeepsItsBytesWhenTheOtherIsWrittenTo() {
        var first = CopyBytes()
        first.append(bigEndian: Int32(0x0102_0304))
        let copy = first
        first.append(0xAA)
        first.set(0xFF, at: 0)
        #expect(array(copy) == [1, 2, 3, 4])
        #expect(array(first) == [0xFF, 2, 3, 4, 0xAA])

        var second = copy
        second.truncate(to: 1)
        second.appendField(bigEndian: 0x1122_3344_5566_7788)
        #expect(array(copy) == [1, 2, 3, 4])
        #expect(array(second) == [1, 0, 0, 0, 8, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
    }

    @Test func fieldsAreTheirLengthThenTheirBytesAcrossGrowth() {
        var bytes = CopyBytes()
        let long = [UInt8](repeating: 7, count: 1000)
        var expected: [UInt8] = []
        for index in 0..<50 {
            bytes.appendField(index % 2 == 0 ? 1 : 0)
            expected += [0, 0, 0, 1, index % 2 == 0 ? 1 : 0]
            long.withUnsafeBufferPointer { bytes.appendField(UnsafeBufferPointer(rebasing: $0[..<index])) }
            expected += [0, 0, 0, UInt8(index)] + long[..<index]
        }
        #expect(array(bytes) == expected)
        #expect(bytes.count == expected.count)
        let copy = bytes
        bytes.removeAll()
        #expect(bytes.isEmpty && array(copy) == expected)
        bytes.append(0x55)
        #expect(array(bytes) == [0x55] && array(copy) == expected)
        var third = copy
        third.reserve(more: 4096)
        third.set(0x66, at: 0)
        #expect(array(copy) == expected && array(third) == [0x66] + expected.dropFirst())
        #expect(copy == CopyBytes(copying: expected) && copy != bytes)
    }
}

extension CopyBytes {
    fileprivate init(copying bytes: [UInt8]) {
        self.init()
        bytes.withUnsafeBufferPointer { append($0) }
    }
}
