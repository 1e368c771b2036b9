module github.com/fieldbook-ssg/fieldbook

go 1.22.0

toolchain go1.22.5

require (
	github.com/alecthomas/chroma/v2 v2.14.0
	github.com/fsnotify/fsnotify v1.7.0
	github.com/spf13/cobra v1.8.1
	github.com/tdewolff/minify/v2 v2.20.37
	github.com/yuin/goldmark v1.7.4
	github.com/yuin/goldmark-highlighting/v2 v2.0.0-20230729083705-37449abec8cc
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	github.com/tdewolff/parse/v2 v2.7.15 // indirect
	golang.org/x/sys v0.22.0 // indirect
)
