// volumekit-bench: speed and memory figures for README's Performance section.
print("volumekit-bench")
RemoteBenchmark.run()
