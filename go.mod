module github.com/rpa-dev/rpa

go 1.26.8
