# Pattern operations: reduce removes the axes its output leaves out, with a
# reduction by name (decisions: sum mean max min prod); repeat may introduce new
# names with a keyword size and numbers on its output.
dim D = 64

fn pooled(x: [b n D]) -> [b D]:
    avg = reduce(x, b n D -> b D, mean)  #= [b D]
    return avg

fn max_pool(img: [b 32 32 D]) -> [b 16 16 D]:
    small = reduce(img, b (h 2) (w 2) D -> b h w D, max)  #= [b h w D]
    return small

fn copies(x: [b D]) -> [b 4 D]:
    r1 = repeat(x, b D -> b r D, r=4)  #= [b r D]
    r2 = repeat(x, b D -> b 3 D)  #= [b 3 D]
    return r1
