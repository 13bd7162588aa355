package annotations

import (
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Compression of answers: the gzip ConfigMap keys.

// gzipConfigKeys are the ConfigMap keys of this family, sorted by key.
var gzipConfigKeys = []configKeySpec{
	{Key: "gzip-level", Kind: kindInt, Default: "1", Description: "Compression level of gzip, 1 to 9.",
		set: configInt(1, 9, func(g *model.Global) *int { return &g.GzipLevel })},
	{Key: "gzip-types", Kind: kindMIMEList, Description: "MIME types compressed when use-gzip is on.",
		Default: strings.Join(model.DefaultGlobal().GzipTypes, " "),
		set:     configGzipTypes},
	{Key: "use-gzip", Kind: kindBool, Default: "false", Description: "Compress answers with gzip.",
		set: configBool(func(g *model.Global) *bool { return &g.UseGzip })},
}

func configGzipTypes(g *model.Global, v string) error {
	types := strings.Fields(v)
	for _, t := range types {
		if _, err := valueMIMEType(t); err != nil {
			return fmt.Errorf("entry %s %v", ValueQuote(t), err)
		}
	}
	g.GzipTypes = types
	return nil
}
