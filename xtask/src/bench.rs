pub fn run(_: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
#[derive(clap::Args)]
pub struct BenchArgs {}
