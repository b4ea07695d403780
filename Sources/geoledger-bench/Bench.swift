/// What the benches share: the workload, the databases they run on and how a stage is measured.
enum Bench {}
