// Command kube-apiserver is the upstream kube-apiserver, built from the Go
// module proxy (k8s.io/kubernetes v1.37.2) for controller-runtime's envtest.
// It is a tool of the tests only: hack/envtest.sh builds it into bin/envtest/.
// It must not be imported by, nor import, the product module.
package main

import (
	"os"
	_ "time/tzdata" // time zones for CronJob, as upstream's main does

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
