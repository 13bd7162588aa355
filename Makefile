# kubectl-ingress: an nginx ingress controller for Kubernetes and the kubectl
# plugin around it. `make help` lists the targets.

GO        ?= go
BIN       := bin/kubectl-ingress
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BENCH_OUT ?= out/bench

.PHONY: help build run-example simulator test deps envtest bench bench-controller golden lint fuzz release-check clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## Build bin/kubectl-ingress
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-ingress

run-example: deps build ## Render examples/ to out/examples and check it with a real nginx -t
	$(BIN) render -f examples/ --output-dir out/examples --validate
	@echo "wrote out/examples/{nginx.conf,backends.json,servers.json,routes.json,problems.txt}"

simulator: deps build ## Run the controller on examples/ with nginx on 127.0.0.1:8080/8443 and demo backends (Ctrl-C stops it)
	$(BIN) controller --from-files examples/ --http-port 8080 --https-port 8443 --demo-backends

deps: ## Install nginx and its Lua modules from Debian's packages when missing
	hack/deps.sh

envtest: ## Build kube-apiserver and etcd for envtest into bin/envtest (once; reused while unchanged)
	GO=$(GO) hack/envtest.sh

test: deps envtest release-check ## Install what the tests need, check the release (make release-check), then run every test (real nginx and API server included), and the e2e suite again with --routing=lua
	$(GO) test -timeout 30m ./...
	KUBECTL_INGRESS_E2E_ROUTING=lua $(GO) test -timeout 30m ./test/e2e

bench: deps ## Benchmarks of render (1,000 and 10,000 Ingresses) and the whole command
	hack/bench-render.sh $(BENCH_OUT)

bench-controller: deps ## Controller on the files source: edit-to-traffic latency, reloads for bursts and rolling updates, 10,000 Ingresses
	hack/bench-controller.sh $(BENCH_OUT)

golden: ## Rewrite the golden files under testdata/ from the current code
	$(GO) test ./cmd/kubectl-ingress -run 'TestRenderGolden|TestDiffGolden|TestBackendsGolden' -update

fuzz: ## Fuzz the nginx.conf writer for a minute
	$(GO) test ./pkg/nginxconf -run '^$$' -fuzz FuzzNGINXConf -fuzztime 60s

release-check: ## goreleaser check, a snapshot release of this platform under dist/, its version, and the krew manifest checked by krew
	GO=$(GO) hack/release-check.sh

lint: ## gofmt and go vet
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

clean: ## Remove build, bench and release output
	rm -rf bin out dist
