// Package deploy holds the kustomize base that installs the controller in a
// cluster (kustomization.yaml and the manifests beside it) and the optional
// admission webhook component (components/webhook). It has no Go code: its
// tests render the kustomization with sigs.k8s.io/kustomize/api, apply it to
// a real kube-apiserver (envtest) and check that the RBAC rules grant what
// the controller calls, no more, by running the controller's own API calls
// as its ServiceAccount.
package deploy
