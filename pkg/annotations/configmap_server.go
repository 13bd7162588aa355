package annotations

import (
	"errors"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The server as a whole: nginx workers, client connections, the Server
// header and trust in X-Forwarded-* headers.

// serverConfigKeys are the ConfigMap keys of this family, sorted by key.
var serverConfigKeys = []configKeySpec{
	{Key: "keep-alive", Kind: kindSeconds, Default: "75", Description: "How long an idle client connection stays open (0: no keep-alive).",
		set: configInt(0, ValueMaxSeconds, func(g *model.Global) *int { return &g.KeepAlive })},
	{Key: "keep-alive-requests", Kind: kindInt, Default: "1000", Description: "Requests served over one client connection.",
		set: configInt(1, MaxInt32, func(g *model.Global) *int { return &g.KeepAliveRequests })},
	{Key: "server-tokens", Kind: kindBool, Default: "false", Description: "Send the nginx version in the Server header and error pages.",
		set: configBool(func(g *model.Global) *bool { return &g.ServerTokens })},
	{Key: "use-forwarded-headers", Kind: kindBool, Default: "false", Description: "Trust the X-Forwarded-* headers of clients (behind another proxy).",
		set: configBool(func(g *model.Global) *bool { return &g.UseForwardedHeaders })},
	{Key: "worker-processes", Kind: kindWorkers, Default: "auto", Description: `Number of nginx worker processes; "auto" for one per CPU.`,
		set: configWorkerProcesses},
}

func configWorkerProcesses(g *model.Global, v string) error {
	if v == "auto" {
		g.WorkerProcesses = v
		return nil
	}
	n, err := valueInt(v, 1, 1024)
	if err != nil {
		return errors.New(`must be "auto" or a whole number from 1 to 1024`)
	}
	g.WorkerProcesses = strconv.Itoa(n)
	return nil
}
