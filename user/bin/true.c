/* true - succeed, doing nothing. */
int main(void)
{
    return 0;
}
