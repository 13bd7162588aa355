package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Server aliases: more names for the hosts of the Ingress.

// aliasAnnotations are the annotations of this family, sorted by name.
var aliasAnnotations = []annotationSpec{
	{Name: "server-alias", Kind: kindHostList, Description: `More names for the hosts of the Ingress; "*." wildcards allowed.`,
		OnInvalid: "invalid entries are skipped",
		set:       annServerAlias},
}

func annServerAlias(s *annotationState, v string) error {
	var bad []string
	seen := map[string]bool{}
	for _, e := range valueList(v) {
		h, err := valueHostname(e, true)
		if err != nil {
			bad = append(bad, ValueQuote(e))
			continue
		}
		if !seen[h] {
			seen[h] = true
			s.out.ServerAliases = append(s.out.ServerAliases, h)
		}
	}
	sort.Strings(s.out.ServerAliases)
	if len(bad) > 0 {
		return fmt.Errorf("entries %s are not DNS names (RFC 1123, optionally starting with \"*.\")", strings.Join(bad, ", "))
	}
	if len(s.out.ServerAliases) == 0 {
		return errors.New("holds no DNS name")
	}
	return nil
}
