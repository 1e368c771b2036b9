package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"google.golang.org/grpc"

	"github.com/northwind-labs/stationd/internal/grpcserver"
)

func newServeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the gRPC ingest server",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx)
		},
	}
}

func serve(ctx context.Context) error {
	pool, err := pgxpool.New(ctx, os.Getenv("STATIOND_DATABASE_DSN"))
	if err != nil {
		return fmt.Errorf("connect database: %w", err)
	}
	defer pool.Close()

	addr := os.Getenv("STATIOND_GRPC_ADDR")
	if addr == "" {
		addr = ":9090"
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}

	srv := grpc.NewServer()
	grpcserver.Register(srv, pool)

	go func() {
		<-ctx.Done()
		srv.GracefulStop()
	}()
	slog.Info("stationd listening", "addr", addr, "version", version)
	return srv.Serve(lis)
}
