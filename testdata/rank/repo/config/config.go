// Package config holds the shop server's settings.
package config

import (
	"flag"
	"time"
)

// Config is the shop's config file.
type Config struct {
	// RefundWindow is how long after payment an order may still be
	// cancelled with a full refund.
	RefundWindow time.Duration `yaml:"refund_window"`
	// Currency is the ISO 4217 code prices are in.
	Currency string `yaml:"currency"`
}

// Flags are the command-line settings.
type Flags struct {
	ListenAddress string
	ConfigFile    string
}

// ParseFlags reads the command line.
func ParseFlags() Flags {
	var f Flags
	flag.StringVar(&f.ListenAddress, "http.listen-address", ":8080", "address the HTTP server listens on")
	flag.StringVar(&f.ConfigFile, "config.file", "shop.yml", "path of the config file")
	flag.Parse()
	return f
}
