fn main() -> std::process::ExitCode {
    ultraplan::ultraplan::main()
}
