package envtesting

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the product module, whose root holds bin/envtest.
const modulePath = "github.com/kubectl-ingress/kubectl-ingress"

// AssetsDir returns <module root>/bin/envtest, where `make envtest` puts
// kube-apiserver, etcd and (when the machine has one) a link to kubectl. The
// module root is found upwards from the working directory, which `go test`
// sets to the package's own directory.
func AssetsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("envtesting: working directory: %w", err)
	}
	for {
		ok, err := isModuleRoot(dir)
		if err != nil {
			return "", err
		}
		if ok {
			return filepath.Join(dir, "bin", "envtest"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("envtesting: no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// isModuleRoot reports whether dir holds the go.mod of modulePath.
func isModuleRoot(dir string) (bool, error) {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("envtesting: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if fields := strings.Fields(s.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath, nil
		}
	}
	return false, s.Err()
}

// missingBinaries returns the names of the binaries that envtest cannot run
// from dir: kube-apiserver and etcd. kubectl is optional.
func missingBinaries(dir string) []string {
	var missing []string
	for _, name := range []string{"kube-apiserver", "etcd"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}
