fn main() -> std::process::ExitCode {
    ultraplan::historian::main()
}
