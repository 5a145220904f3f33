package cluster

import (
	"flag"
	"path/filepath"
	"strings"
)

// Register adds the flags of `rpa gateway` that make it a replica, writing into c:
// --cluster-listen, --cluster-peers, --data, --replica-name, --cluster-tls-ca/-cert/-key (NATS
// embedded in the replicas) and --nats, --nats-creds, --nats-tls, --nats-tls-ca/-cert/-key (the
// site's NATS). These flag names are an interface (docs/gateway.md, "Several gateways"). Call
// Finish after parsing.
func (c *Config) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.ClusterListen, "cluster-listen", "", "run as a replica with NATS embedded: its cluster (route) address HOST:PORT")
	fs.Func("cluster-peers", "the other replicas' --cluster-listen addresses, HOST:PORT,HOST:PORT (repeatable)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				c.Peers = append(c.Peers, p)
			}
		}
		return nil
	})
	fs.StringVar(&c.DataDir, "data", "", "the gateway's data folder: the embedded NATS's data, the key that signs call ids (default $RPA_HOME/gateway)")
	fs.StringVar(&c.Name, "replica-name", "", "this replica's name in the cluster (default HOSTNAME-PORT)")
	fs.StringVar(&c.RouteTLS.CA, "cluster-tls-ca", "", "CA (PEM) that verifies the other replicas' route certificates")
	fs.StringVar(&c.RouteTLS.Cert, "cluster-tls-cert", "", "this replica's route certificate (PEM): routes use TLS")
	fs.StringVar(&c.RouteTLS.Key, "cluster-tls-key", "", "private key of --cluster-tls-cert (PEM)")
	fs.StringVar(&c.NATSURL, "nats", "", "run as a replica on the site's NATS (with JetStream): nats://HOST:PORT[,nats://...]")
	fs.StringVar(&c.Creds, "nats-creds", "", "NATS credentials file for --nats")
	fs.BoolVar(&c.TLS.Required, "nats-tls", false, "connect to --nats over TLS (the system's roots verify it)")
	fs.StringVar(&c.TLS.CA, "nats-tls-ca", "", "CA (PEM) that verifies the --nats servers (implies --nats-tls)")
	fs.StringVar(&c.TLS.Cert, "nats-tls-cert", "", "client certificate (PEM) for --nats (implies --nats-tls)")
	fs.StringVar(&c.TLS.Key, "nats-tls-key", "", "private key of --nats-tls-cert (PEM)")
}

// Finish fills what the flags left to defaults: the data folder under home, and the route
// secret derived from the gateways' agent token (RouteSecret).
func (c *Config) Finish(home, agentToken string) {
	if c.ClusterListen != "" && c.DataDir == "" {
		c.DataDir = filepath.Join(home, "gateway")
	}
	if c.Secret == "" {
		c.Secret = RouteSecret(agentToken)
	}
}
