#!/bin/sh
# 003 Fig. 11 as a comparison: the HybridRFE space of the built-in spec singh_hybrid_rfe
# (studies/singh_hybrid_rfe.toml) tuned for φ,
# for φ_pears and for φ_iw (three studies, 100 trials each), compared under all three
# measures: each study's front and dominance area with its interval, the pairwise
# differences, the combined front and 000 Table 3's ranges (README, "Comparing").
# About 3 min per study and 30 min of replicates (B = 5) on a 2-core machine.
set -e
cd "$(dirname "$0")/.."
STORAGE=${STORAGE:-sqlite:///singh_fig11.db}
for measure in phi phi_pears phi_iw; do
    python -m paretostab tune singh_hybrid_rfe --objective "$measure" \
        --n-trials 100 --workers 2 --n-jobs 1 --storage "$STORAGE"
done
python -m paretostab compare singh_hybrid_rfe_nogueira singh_hybrid_rfe_pearson \
    singh_hybrid_rfe_iw --storage "$STORAGE" --measures phi,phi_pears,phi_iw \
    --replicates 5 --out singh_fig11
