module smallio

go 1.19
