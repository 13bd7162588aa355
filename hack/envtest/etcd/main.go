// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3
// v3.6.16), built from the Go module proxy for controller-runtime's envtest.
// It is a module of its own because k8s.io/kubernetes v1.37.2 requires etcd
// v3.7.0, which would raise it in a shared module. A tool of the tests only:
// hack/envtest.sh builds it into bin/envtest/; it must not import the product.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
