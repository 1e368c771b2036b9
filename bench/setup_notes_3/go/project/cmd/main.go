package main

import (
	"context"
	"flag"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	quotav1alpha1 "github.com/riverbend-labs/teamquota-operator/api/v1alpha1"
)

// TeamQuotaReconciler keeps a ResourceQuota in every namespace owned by a team.
type TeamQuotaReconciler struct {
	client.Client
}

// +kubebuilder:rbac:groups=quota.riverbend.io,resources=teamquotas,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=quota.riverbend.io,resources=teamquotas/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=get;list;watch;create;update;patch;delete

func (r *TeamQuotaReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	var tq quotav1alpha1.TeamQuota
	if err := r.Get(ctx, req.NamespacedName, &tq); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	log.V(1).Info("reconciling team quota", "team", tq.Spec.Team)
	// Namespace listing and ResourceQuota upserts omitted from this excerpt.
	return ctrl.Result{}, nil
}

func main() {
	var leaderElect bool
	flag.BoolVar(&leaderElect, "leader-elect", false, "enable leader election")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = quotav1alpha1.AddToScheme(scheme)

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:           scheme,
		LeaderElection:   leaderElect,
		LeaderElectionID: "teamquota.riverbend.io",
	})
	if err != nil {
		os.Exit(1)
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&quotav1alpha1.TeamQuota{}).
		Owns(&corev1.ResourceQuota{}).
		Complete(&TeamQuotaReconciler{Client: mgr.GetClient()}); err != nil {
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		os.Exit(1)
	}
}
