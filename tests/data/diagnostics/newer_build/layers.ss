dim D = 4
