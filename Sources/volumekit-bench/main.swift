// volumekit-bench: speed and memory figures for README's Performance section.
print("volumekit-bench")
SoundsBenchmark.run()
MuteBenchmark.run()
