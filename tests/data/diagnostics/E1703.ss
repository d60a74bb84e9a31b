# From the reference's section on E1703.
dim D = 768

import python numpy

export fn scale(x: [n D]) -> [n D]:
    w = numpy.ones(768)  # E1701
    return x * (w as [D])  # E1703
