// The etcd server of this release, built from the Go module proxy: etcd's own entry point, unchanged.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
