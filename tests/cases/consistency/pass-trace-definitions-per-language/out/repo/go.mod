module example.com/export

go 1.22
