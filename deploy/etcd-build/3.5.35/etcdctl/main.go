// etcdctl of this release, built from the Go module proxy: etcd's own entry point, unchanged.
package main

import "go.etcd.io/etcd/etcdctl/v3/ctlv3"

func main() { ctlv3.MustStart() }
