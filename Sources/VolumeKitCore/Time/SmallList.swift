/// A list of at most ``capacity`` elements kept inline, so making, returning and dropping one costs no heap
/// allocation (checked by `volumekit-bench`).
///
/// The state machines return their actions in one: every input produces a handful at most, bounded by
/// construction. Appending past the capacity is a programming error and traps.
public struct SmallList<Element>: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    /// How many elements fit.
    public static var capacity: Int { 12 }

    // Reachable from the inlinable accessors below, so that a client module iterating a list (the engine's driver,
    // volumekit-bench) gets code specialised for its element type instead of generic calls.
    @usableFromInline var e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11: Element?
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
            case 0: return e0!
            case 1: return e1!
            case 2: return e2!
            case 3: return e3!
            case 4: return e4!
            case 5: return e5!
            case 6: return e6!
            case 7: return e7!
            case 8: return e8!
            case 9: return e9!
            case 10: return e10!
            default: return e11!
            }
        }
        set {
            precondition(index >= 0 && index < count, "SmallList index out of range")
            store(newValue, at: index)
        }
    }

    @usableFromInline mutating func store(_ element: Element?, at index: Int) {
        switch index {
        case 0: e0 = element
        case 1: e1 = element
        case 2: e2 = element
        case 3: e3 = element
        case 4: e4 = element
        case 5: e5 = element
        case 6: e6 = element
        case 7: e7 = element
        case 8: e8 = element
        case 9: e9 = element
        case 10: e10 = element
        default: e11 = element
        }
    }

    /// Adds `element` at the end.
    public mutating func append(_ element: Element) {
        precondition(count < Self.capacity, "SmallList holds at most \(Self.capacity) elements")
        store(element, at: count)
        count += 1
    }

    /// Adds every element of `other` at the end.
    public mutating func append(contentsOf other: SmallList<Element>) {
        for index in 0..<other.count { append(other[index]) }
    }

    /// Removes the first `k` elements.
    public mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "SmallList cannot remove \(k) of \(count) elements")
        guard k > 0 else { return }
        for index in 0..<(count - k) { store(self[index + k], at: index) }
        for index in (count - k)..<count { store(nil, at: index) }
        count -= k
    }

    /// Removes the element at `index`, keeping the order of the others.
    public mutating func remove(at index: Int) {
        precondition(index >= 0 && index < count, "SmallList index out of range")
        for position in index..<(count - 1) { store(self[position + 1], at: position) }
        store(nil, at: count - 1)
        count -= 1
    }

    /// Removes the elements that satisfy `shouldRemove`, keeping the order of the others.
    public mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = 0
        for index in 0..<count {
            let element = self[index]
            if !shouldRemove(element) {
                // Until the first removal every element is already in its place.
                if kept != index { store(element, at: kept) }
                kept += 1
            }
        }
        guard kept < count else { return }
        for index in kept..<count { store(nil, at: index) }
        count = kept
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
        return lhs.indices.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// The index of the first element equal to `element`.
    func firstIndex(of element: Element) -> Int? { firstIndex { $0 == element } }
}

// The searches the machines make on every observation, walking the list's own indices: the standard library's walk
// an iterator, which holds a copy of every slot of the list, made anew for each search. Same results.
extension SmallList {
    /// The first element that satisfies `predicate`.
    func first(where predicate: (Element) -> Bool) -> Element? {
        firstIndex(where: predicate).map { self[$0] }
    }

    /// The index of the first element that satisfies `predicate`.
    func firstIndex(where predicate: (Element) -> Bool) -> Int? {
        indices.first { predicate(self[$0]) }
    }

    /// The last element that satisfies `predicate`.
    func last(where predicate: (Element) -> Bool) -> Element? {
        indices.last { predicate(self[$0]) }.map { self[$0] }
    }

    /// Whether an element satisfies `predicate`.
    func contains(where predicate: (Element) -> Bool) -> Bool { firstIndex(where: predicate) != nil }

    /// Calls `body` on each element in order.
    func forEach(_ body: (Element) -> Void) {
        for index in indices { body(self[index]) }
    }

    /// How many elements satisfy `predicate`.
    func count(where predicate: (Element) -> Bool) -> Int {
        indices.reduce(0) { $0 + (predicate(self[$1]) ? 1 : 0) }
    }
}

extension SmallList: Sendable where Element: Sendable {}

extension SmallList: CustomStringConvertible {
    /// The elements, like an array's description.
    public var description: String { Array(self).description }
}
