import Testing

@testable import VolumeKitCore

/// `SmallList` keeps its elements in a fixed tuple changed through a pointer: every slot must hold what was put in
/// it, a copy must stay apart from the list it was copied from, and the capacity must hold.
@Suite("SmallList")
struct SmallListTests {
    /// An element whose size is not a power of two and that holds a reference (a string's storage): a slot at a
    /// wrong offset, or a copy that shares storage, shows.
    private struct Sample: Equatable {
        var name: String
        var value: Float
        var flag: Bool
    }

    private func sample(_ index: Int) -> Sample {
        Sample(name: "sample number \(index) of a list", value: Float(index), flag: index.isMultiple(of: 2))
    }

    private func full() -> SmallList<Sample> {
        var list = SmallList<Sample>()
        for index in 0..<SmallList<Sample>.capacity { list.append(sample(index)) }
        return list
    }

    @Test("Every slot up to the capacity holds what was put in it, in order")
    func everySlot() {
        let list = full()
        #expect(list.count == 12 && list.isFull)
        #expect(Array(list) == (0..<12).map(sample))
        for index in 0..<12 {
            #expect(list[index] == sample(index))
            #expect(list.firstIndex { $0.value == Float(index) } == index)
            #expect(list.last { $0.value <= Float(index) } == sample(index))
        }
        #expect(list.count { $0.flag } == 6)
    }

    @Test("A copy is a value: changing it, or the list it came from, leaves the other as it was")
    func copiesStayApart() {
        var list = full()
        var copy = list
        copy[11].name = "changed"
        copy.remove(at: 0)
        copy.append(sample(99))
        #expect(Array(list) == (0..<12).map(sample))
        list.removeAll { $0.flag }
        list.removeFirst(2)
        #expect(Array(list) == [5, 7, 9, 11].map(sample))
        var expected = (1..<12).map(sample)
        expected[10].name = "changed"
        #expect(Array(copy) == expected + [sample(99)])
        #expect(copy != list)
    }

    @Test("Removals keep the order of the rest and free the slots after it for new elements")
    func removalsFreeSlots() {
        var list = full()
        list.remove(at: 11)
        list.remove(at: 3)
        list.removeFirst(1)
        list.removeAll { $0.value == 6 }
        #expect(Array(list) == [1, 2, 4, 5, 7, 8, 9, 10].map(sample))
        for index in 20..<24 { list.append(sample(index)) }
        #expect(list.isFull)
        #expect(Array(list) == [1, 2, 4, 5, 7, 8, 9, 10, 20, 21, 22, 23].map(sample))
        list.removeAll { _ in true }
        #expect(list.isEmpty && list == SmallList())
    }

    @Test("Removing the first match takes only the first, at any slot; swapping exchanges two slots")
    func removeFirstMatchAndSwap() {
        var list = full()
        list.append(contentsOf: [])
        list.removeFirst { $0.value >= 11 }
        list.removeFirst { $0.flag }
        list.removeFirst { $0.value > 99 }
        #expect(Array(list) == (1..<11).map(sample))
        list.swapAt(0, 9)
        list.swapAt(4, 4)
        #expect(list.first == sample(10) && list.last == sample(1) && list[4] == sample(5))
    }

    @Test("Searches read in place see the first `count` elements only, as the list's own elements")
    func inPlaceSearches() {
        for count in 0...12 {
            var list = SmallList<Sample>()
            for index in 0..<count { list.append(sample(index)) }
            // Its slots past the count held elements before (emptied since): a search stops at the count.
            var shrunk = full()
            shrunk.removeAll { $0.value >= Float(count) }
            let elements = Array(list)
            for probe in [-1, 0, 3, 5, 11, 12] {
                let threshold = Float(probe)
                for var searched in [list, shrunk] {
                    #expect(searched.firstInPlace { $0.value >= threshold } == elements.first { $0.value >= threshold })
                    #expect(searched.lastInPlace { $0.value <= threshold } == elements.last { $0.value <= threshold })
                    #expect(
                        searched.lastIndexInPlace { $0.value <= threshold }
                            == elements.lastIndex { $0.value <= threshold })
                    #expect(
                        searched.containsInPlace { $0.value == threshold }
                            == elements.contains { $0.value == threshold })
                    #expect(searched.countInPlace { $0.flag } == elements.count { $0.flag })
                    var seen: [Sample] = []
                    searched.forEachInPlace { seen.append($0) }
                    #expect(seen == elements)
                    #expect(searched == list)
                }
            }
        }
    }

    @Test("Inserting at any place moves the elements from there one place on, up to the capacity")
    func insertAtEveryPlace() {
        for count in 0..<12 {
            for place in 0...count {
                var list = SmallList<Sample>()
                for index in 0..<count { list.append(sample(index)) }
                list.insert(sample(99), at: place)
                var expected = (0..<count).map(sample)
                expected.insert(sample(99), at: place)
                #expect(Array(list) == expected)
                #expect(list.count == count + 1)
            }
        }
    }

    @Test("Appending past the capacity stops the program, as documented")
    func trapsPastCapacity() async {
        await #expect(processExitsWith: .failure) {
            var list = SmallList<Int>()
            for index in 0...SmallList<Int>.capacity { list.append(index) }
        }
    }
}
