# An import's bound name is a module-scope name like any other.
import imported.shapes as double

fn double(x: [n]) -> [n] = x * 2  # E0302
