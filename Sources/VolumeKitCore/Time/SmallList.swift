/// A list of at most ``capacity`` elements kept inline, so making, returning and dropping one costs no heap
/// allocation (checked by `volumekit-bench`).
///
/// The state machines return their actions in one: every input produces a handful at most, bounded by
/// construction. Appending past the capacity is a programming error and traps.
public struct SmallList<Element>: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    /// How many elements fit.
    public static var capacity: Int { 12 }

    /// Twelve optional slots, laid out like a C array of them (a homogeneous tuple).
    @usableFromInline typealias Slots = (
        Element?, Element?, Element?, Element?, Element?, Element?,
        Element?, Element?, Element?, Element?, Element?, Element?
    )
    /// The inline slots: the first ``count`` hold the elements, the others `nil`.
    ///
    /// A homogeneous tuple, laid out like a C array. Changes reach it through a pointer to its first slot
    /// (``withMutableSlots(_:)``): the slot of an index is at an offset computed from it, where a `switch` over twelve
    /// stored properties took the address of every slot first — the detection machine's budget is 100 ns an
    /// observation (README, Performance). Reads of a list as a value switch over the tuple's fields instead: a pointer
    /// to a value that is only borrowed is a pointer to a copy of all twelve slots. The machines' searches read a
    /// variable's slots in place, through the same pointer (the in-place searches below). The list stays a value:
    /// assigning it copies the tuple, and no pointer leaves ``withMutableSlots(_:)``'s closure.
    ///
    /// Reachable from the inlinable accessors below, so that a client module iterating a list (the engine's driver,
    /// volumekit-bench) gets code specialised for its element type instead of generic calls.
    @usableFromInline var slots: Slots = (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
    /// The number of elements.
    public private(set) var count = 0

    /// An empty list.
    public init() {}

    /// A list of `elements`.
    public init(arrayLiteral elements: Element...) {
        for element in elements { append(element) }
    }

    /// The first index, 0.
    @inlinable public var startIndex: Int { 0 }
    /// One past the last index.
    @inlinable public var endIndex: Int { count }
    /// Whether another element fits.
    public var isFull: Bool { count == Self.capacity }

    /// The element at `index`.
    @inlinable public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "SmallList index out of range")
            switch index {
            case 0: return slots.0!
            case 1: return slots.1!
            case 2: return slots.2!
            case 3: return slots.3!
            case 4: return slots.4!
            case 5: return slots.5!
            case 6: return slots.6!
            case 7: return slots.7!
            case 8: return slots.8!
            case 9: return slots.9!
            case 10: return slots.10!
            default: return slots.11!
            }
        }
        set {
            precondition(index >= 0 && index < count, "SmallList index out of range")
            withMutableSlots { $0[index] = newValue }
        }
    }

    /// Calls `body` with the slots as a mutable buffer of ``capacity`` optionals; the pointer is valid only inside
    /// `body`.
    @inlinable mutating func withMutableSlots<Result>(
        _ body: (UnsafeMutableBufferPointer<Element?>) throws -> Result
    ) rethrows -> Result {
        try withUnsafeMutablePointer(to: &slots) { tuple in
            try tuple.withMemoryRebound(to: Element?.self, capacity: Self.capacity) { first in
                try body(UnsafeMutableBufferPointer(start: first, count: Self.capacity))
            }
        }
    }

    /// Exchanges the elements at `i` and `j`, in place.
    public mutating func swapAt(_ i: Int, _ j: Int) {
        precondition(i >= 0 && i < count && j >= 0 && j < count, "SmallList index out of range")
        withMutableSlots { $0.swapAt(i, j) }
    }

    /// Adds `element` at the end.
    public mutating func append(_ element: Element) {
        precondition(count < Self.capacity, "SmallList holds at most \(Self.capacity) elements")
        let index = count
        withMutableSlots { $0[index] = element }
        count += 1
    }

    /// Puts `element` at `index`, moving the elements from there one place on.
    mutating func insert(_ element: Element, at index: Int) {
        precondition(count < Self.capacity, "SmallList holds at most \(Self.capacity) elements")
        precondition(index >= 0 && index <= count, "SmallList index out of range")
        let count = self.count
        withMutableSlots { slots in
            for position in stride(from: count, to: index, by: -1) { slots[position] = slots[position - 1] }
            slots[index] = element
        }
        self.count += 1
    }

    /// Adds every element of `other` at the end.
    public mutating func append(contentsOf other: SmallList<Element>) {
        for index in 0..<other.count { append(other[index]) }
    }

    /// Removes the first `k` elements.
    public mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "SmallList cannot remove \(k) of \(count) elements")
        guard k > 0 else { return }
        let count = self.count
        withMutableSlots { slots in
            for index in 0..<(count - k) { slots[index] = slots[index + k] }
            for index in (count - k)..<count { slots[index] = nil }
        }
        self.count -= k
    }

    /// Removes the element at `index`, keeping the order of the others.
    public mutating func remove(at index: Int) {
        precondition(index >= 0 && index < count, "SmallList index out of range")
        let last = count - 1
        withMutableSlots { slots in
            for position in index..<last { slots[position] = slots[position + 1] }
            slots[last] = nil
        }
        count = last
    }

    /// Removes the first element that satisfies `predicate`, keeping the order of the others. Looked for in place:
    /// a search on the list as a value reads every slot of it first.
    mutating func removeFirst(where predicate: (Element) -> Bool) {
        let count = self.count
        let removed = withMutableSlots { slots in
            var index = 0
            while index < count, !predicate(slots[index]!) { index += 1 }
            guard index < count else { return false }
            for position in index..<(count - 1) { slots[position] = slots[position + 1] }
            slots[count - 1] = nil
            return true
        }
        if removed { self.count -= 1 }
    }

    /// Removes the elements that satisfy `shouldRemove`, keeping the order of the others.
    public mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        let count = self.count
        self.count = withMutableSlots { slots in
            var kept = 0
            for index in 0..<count {
                let element = slots[index]!
                if !shouldRemove(element) {
                    // Until the first removal every element is already in its place.
                    if kept != index { slots[kept] = element }
                    kept += 1
                }
            }
            for index in kept..<count { slots[index] = nil }
            return kept
        }
    }

    /// `lhs` followed by `rhs`.
    public static func + (lhs: SmallList, rhs: SmallList) -> SmallList {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// Appends `rhs` to `lhs`.
    public static func += (lhs: inout SmallList, rhs: SmallList) {
        lhs.append(contentsOf: rhs)
    }
}

extension SmallList: Equatable where Element: Equatable {
    /// Lists are equal when they hold equal elements in the same order.
    public static func == (lhs: SmallList, rhs: SmallList) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var index = 0
        while index < lhs.count {
            if lhs[index] != rhs[index] { return false }
            index += 1
        }
        return true
    }
}

// Searches on a list read as a value (a constant, a reader that does not change its owner), walking the list's own
// indices in a loop: the standard library's walk an iterator, which holds a copy of every slot of the list, and a
// closure over the list (as `indices.first { predicate(self[$0]) }`) captures a copy of it too, made anew for each
// search. Same results. They are inlined where they are made: a call would receive a copy of the whole list (392
// bytes of echoes) taken from its owner. The machines' searches on every observation read in place (below).
extension SmallList {
    /// The first element that satisfies `predicate`.
    @inline(__always) func first(where predicate: (Element) -> Bool) -> Element? {
        var index = 0
        while index < count {
            let element = self[index]
            if predicate(element) { return element }
            index += 1
        }
        return nil
    }

    /// The index of the first element that satisfies `predicate`.
    @inline(__always) func firstIndex(where predicate: (Element) -> Bool) -> Int? {
        var index = 0
        while index < count {
            if predicate(self[index]) { return index }
            index += 1
        }
        return nil
    }

    /// The last element that satisfies `predicate`.
    @inline(__always) func last(where predicate: (Element) -> Bool) -> Element? {
        var index = count - 1
        while index >= 0 {
            let element = self[index]
            if predicate(element) { return element }
            index -= 1
        }
        return nil
    }

    /// Whether an element satisfies `predicate`.
    @inline(__always) func contains(where predicate: (Element) -> Bool) -> Bool { firstIndex(where: predicate) != nil }

    /// Calls `body` on each element in order.
    @inline(__always) func forEach(_ body: (Element) -> Void) {
        var index = 0
        while index < count {
            body(self[index])
            index += 1
        }
    }

    /// How many elements satisfy `predicate`.
    @inline(__always) func count(where predicate: (Element) -> Bool) -> Int {
        var matches = 0
        var index = 0
        while index < count {
            if predicate(self[index]) { matches += 1 }
            index += 1
        }
        return matches
    }
}

// The same searches, read in place: through a pointer to the first slot, over the first `count` slots only. A list
// read as a value — even borrowed, even through `withUnsafePointer(to:)` — is first loaded whole (twelve slots,
// whatever the count: 392 bytes for the ledger of echoes); only a variable's slots can be reached where they are, so
// these are `mutating`, though they change nothing. The detection machine's budget is 100 ns an observation
// (README, Performance): its searches on every observation are these. The pointer never leaves this file.
extension SmallList {
    /// Calls `body` with the elements, read where they are; the pointer is valid only inside `body`.
    @inline(__always) private mutating func withElementsInPlace<Result>(
        _ body: (UnsafeBufferPointer<Element?>) -> Result
    ) -> Result {
        let count = self.count
        return withMutableSlots { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The first element that satisfies `predicate`, read in place.
    @inline(__always) mutating func firstInPlace(where predicate: (Element) -> Bool) -> Element? {
        withElementsInPlace { elements in
            for slot in elements where predicate(slot!) { return slot! }
            return nil
        }
    }

    /// The index of the last element that satisfies `predicate`, read in place.
    @inline(__always) mutating func lastIndexInPlace(where predicate: (Element) -> Bool) -> Int? {
        withElementsInPlace { elements in elements.lastIndex { predicate($0!) } }
    }

    /// The last element that satisfies `predicate`, read in place.
    @inline(__always) mutating func lastInPlace(where predicate: (Element) -> Bool) -> Element? {
        withElementsInPlace { elements in
            for slot in elements.reversed() where predicate(slot!) { return slot! }
            return nil
        }
    }

    /// Whether an element satisfies `predicate`, read in place.
    @inline(__always) mutating func containsInPlace(where predicate: (Element) -> Bool) -> Bool {
        firstInPlace(where: predicate) != nil
    }

    /// How many elements satisfy `predicate`, read in place.
    @inline(__always) mutating func countInPlace(where predicate: (Element) -> Bool) -> Int {
        withElementsInPlace { elements in
            var matches = 0
            for slot in elements where predicate(slot!) { matches += 1 }
            return matches
        }
    }

    /// Calls `body` on each element in order, read in place.
    @inline(__always) mutating func forEachInPlace(_ body: (Element) -> Void) {
        withElementsInPlace { elements in
            for slot in elements { body(slot!) }
        }
    }
}

extension SmallList: Sendable where Element: Sendable {}

extension SmallList: CustomStringConvertible {
    /// The elements, like an array's description.
    public var description: String { Array(self).description }
}
