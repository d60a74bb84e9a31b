# Shapes and sizes > Shape aliases: dim Tokens = [b n D] is a name for a list of
# axes, usable as a whole shape or among a shape's axes ([Tokens 2] is [b n D 2]).
dim D = 64
dim Tokens = [b n D]

fn pooled(x: Tokens) -> [b D] = mean(x, over=n)  #= [b D]

fn whole(x: Tokens) -> [b n D] = x  #= [b n D]

fn pairs(x: [Tokens 2]) -> [b n D 2] = x  #= [b n D 2]
