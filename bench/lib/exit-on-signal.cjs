// Preloaded (-r) into the server only when the benchmark profiles it (--cpu-prof): SIGUSR2 ends the
// process with a normal exit, which is when Node writes the .cpuprofile.
process.on('SIGUSR2', () => process.exit(0));
