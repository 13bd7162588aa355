package main

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// maxCertsAnswer bounds the PEM read: a chain and a key are a few KiB.
const maxCertsAnswer = 1 << 20

// maxNginxConfAnswer bounds the nginx.conf read of a pod (classic routing
// at 10,000 Ingresses writes about 60 MiB).
const maxNginxConfAnswer = 512 << 20

const certsLong = `Show the certificate that a controller pod's nginx serves for a host: what its Lua certificate
store holds for the host name (exact, then the *. wildcard of its parent, then the default
certificate --default-ssl-certificate), read from the pod's status server (GET
/configuration/certs?hostname=HOST) through the same port-forward as "kubectl ingress backends",
or from --url. It prints the Secret, subject, issuer, DNS names, validity and SHA-256 fingerprint
of each certificate of the chain; never the private key, which is dropped as the answer is read.
An ingress-nginx controller pod answers the same way (without the Secret).

Which pod: as for "kubectl ingress backends" (--pod, -l, --deployment, -n, --url).

Exit status: 0 on success; 3 on an error (no such pod, no certificate for the host — then nginx
serves the self-signed certificate of nginx.conf —, an answer without a certificate).`

const certsExample = `  # The certificate served for shop.example.com by the controller Deployment
  kubectl ingress certs --host shop.example.com

  # The local simulator, as JSON
  kubectl ingress certs --url http://127.0.0.1:10246 --host shop.example.com -o json`

// CertsOptions are the flags of "kubectl ingress certs".
type CertsOptions struct {
	// target holds the flags that say which status server to ask.
	target *BackendsOptions
	Host   string
	Output string
	genericiooptions.IOStreams
}

// servedCertificate is what certs prints of the certificate served for a
// host: the chain, without the key.
type servedCertificate struct {
	Host string `json:"host"`
	// Secret is the certificate id of the status server: the
	// "namespace/name" of the Secret ("" when the server does not say).
	Secret string            `json:"secret,omitempty"`
	Chain  []certificateInfo `json:"chain"`
}

type certificateInfo struct {
	Subject   string    `json:"subject"`
	Issuer    string    `json:"issuer"`
	DNSNames  []string  `json:"dnsNames,omitempty"`
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	Serial    string    `json:"serial"`
	SHA256    string    `json:"sha256"`
}

// NewCmdCerts builds "kubectl ingress certs".
func NewCmdCerts(streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdCerts(&CertsOptions{target: NewBackendsOptions(streams, defaultClusterClients()), IOStreams: streams})
}

func newCmdCerts(o *CertsOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "certs --host HOST [--pod NAME | --deployment NAME | -l SELECTOR | --url URL] [-o json|yaml]",
		Short:   "Show the certificate a controller pod serves for a host: Secret, subject, names, expiry (never the key)",
		Long:    certsLong,
		Example: certsExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.target.deploymentSet = cmd.Flags().Changed("deployment")
			if err := o.Validate(); err != nil {
				return &usageError{err: err}
			}
			if err := o.target.Complete(cmd); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.target.addTargetFlags(cmd)
	cmd.Flags().StringVar(&o.Host, "host", "", "The host name whose certificate to show (required)")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: empty for text, json or yaml")
	registerFixed(cmd, "output", "json", "yaml")
	registerBackendsCompletions(cmd, o.target)
	return cmd
}

// Validate checks the flags.
func (o *CertsOptions) Validate() error {
	if o.Host == "" {
		return errors.New("give --host HOST: the host name whose certificate to show")
	}
	switch o.Output {
	case "", outputJSON, outputYAML:
	default:
		return fmt.Errorf("--output must be json or yaml, got %q", o.Output)
	}
	return o.target.validateTarget()
}

// Run asks the status server and prints the certificate.
func (o *CertsOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pod, where, err := o.target.onePod(ctx)
	if err != nil {
		return err
	}
	a, err := o.target.askStatus(ctx, pod, luaapi.PathCerts, url.Values{"hostname": {o.Host}}, maxCertsAnswer)
	if err == nil {
		err = o.show(a)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// show prints the answer of GET /configuration/certs.
func (o *CertsOptions) show(a statusAnswer) error {
	switch a.status {
	case http.StatusOK:
	case http.StatusNotFound:
		return fmt.Errorf("no certificate for %s: nginx serves it the self-signed certificate of nginx.conf (no Ingress TLS entry covers it, and no --default-ssl-certificate)", o.Host)
	default:
		return a.unexpected()
	}
	sc, err := describeChain(o.Host, a.header.Get("X-Certificate-Id"), a.body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", a.path, err)
	}
	switch o.Output {
	case outputJSON:
		b, err := json.MarshalIndent(sc, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "%s\n", b)
		return err
	case outputYAML:
		b, err := yaml.Marshal(sc)
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	return printCertificate(o.Out, sc, time.Now())
}

// describeChain reads the CERTIFICATE blocks of pemBytes; every other
// block (the key) is dropped unread.
func describeChain(host, id string, pemBytes []byte) (servedCertificate, error) {
	sc := servedCertificate{Host: host, Secret: id}
	for rest := pemBytes; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return sc, fmt.Errorf("certificate %d of the answer: %w", len(sc.Chain)+1, err)
		}
		sum := sha256.Sum256(c.Raw)
		sc.Chain = append(sc.Chain, certificateInfo{
			Subject: c.Subject.String(), Issuer: c.Issuer.String(), DNSNames: c.DNSNames,
			NotBefore: c.NotBefore.UTC(), NotAfter: c.NotAfter.UTC(),
			Serial: c.SerialNumber.Text(16), SHA256: strings.ToUpper(hex.EncodeToString(sum[:])),
		})
	}
	if len(sc.Chain) == 0 {
		return sc, errors.New("the answer holds no PEM certificate")
	}
	return sc, nil
}

// printCertificate prints sc as "FIELD  value" lines, the chain's
// certificates after the leaf indented.
func printCertificate(w io.Writer, sc servedCertificate, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "HOST\t%s\n", sc.Host)
	if sc.Secret != "" {
		fmt.Fprintf(tw, "SECRET\t%s\n", sc.Secret)
	}
	for i, c := range sc.Chain {
		if i > 0 {
			fmt.Fprintf(tw, "CHAIN %d\t\n", i)
		}
		fmt.Fprintf(tw, "SUBJECT\t%s\n", c.Subject)
		fmt.Fprintf(tw, "ISSUER\t%s\n", c.Issuer)
		if len(c.DNSNames) > 0 {
			fmt.Fprintf(tw, "DNS NAMES\t%s\n", strings.Join(c.DNSNames, ", "))
		}
		fmt.Fprintf(tw, "NOT BEFORE\t%s\n", c.NotBefore.Format(time.RFC3339))
		fmt.Fprintf(tw, "NOT AFTER\t%s (%s)\n", c.NotAfter.Format(time.RFC3339), expiresIn(c.NotAfter, now))
		fmt.Fprintf(tw, "SERIAL\t%s\n", c.Serial)
		fmt.Fprintf(tw, "SHA-256\t%s\n", c.SHA256)
	}
	return tw.Flush()
}

// expiresIn says how long until notAfter, in whole days: "expires in 89
// days", "expired 3 days ago", "expires today".
func expiresIn(notAfter, now time.Time) string {
	d := notAfter.Sub(now)
	days := int(d.Hours() / 24)
	switch {
	case d < 0 && days == 0:
		return "expired today"
	case d < 0:
		return fmt.Sprintf("expired %d %s ago", -days, plural(-days, "day", "days"))
	case days == 0:
		return "expires today"
	}
	return fmt.Sprintf("expires in %d %s", days, plural(days, "day", "days"))
}
