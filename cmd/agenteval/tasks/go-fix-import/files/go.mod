module example.com/up

go 1.22
